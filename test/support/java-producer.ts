/**
 * Apache Kafka's own Java client as a test producer: `JavaProducer.java` compiled with javac
 * against the kafka-clients jar and its codec libraries (zstd-jni, lz4-java, snappy-java), which
 * the broker's classpath already holds. The build is kept under `.cache/java-producer/`, keyed
 * by the source and the classpath, so a rerun compiles nothing.
 *
 * @example
 * ```ts
 * await publishWithJava(['127.0.0.1:9092'], topics, [{ mode: 'zstd', source: 'edge', key: 'p', line }]);
 * ```
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Source } from '../../src/events/types.ts';
import type { TopicNames } from '../../src/kafka/topics.ts';
import { kafkaClasspath } from '../../tools/services/kafka-classpath.ts';
import { CACHE_DIR } from '../../tools/services/paths.ts';
import { runLogged } from '../../tools/services/run.ts';

const SOURCE = fileURLToPath(new URL('./java/JavaProducer.java', import.meta.url));

/** How a record is sent: with a compression type, or in a transaction committed or aborted. */
export type JavaMode = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd' | 'commit' | 'abort';

/** One record for the Java producer; a null key sends none. */
export interface JavaRecord {
  readonly mode: JavaMode;
  readonly source: Source;
  readonly key: string | null;
  readonly line: string;
}

/** The folder of the compiled producer, built on first use. */
async function compiled(classpath: string): Promise<string> {
  const digest = createHash('sha256').update(readFileSync(SOURCE)).update(classpath).digest('hex');
  const dir = join(CACHE_DIR, 'java-producer', digest.slice(0, 16));
  if (existsSync(join(dir, 'JavaProducer.class'))) return dir;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await runLogged('javac', ['-cp', classpath, '-d', partial, SOURCE], {
    logFile: join(CACHE_DIR, 'java-producer', 'javac.log'),
  });
  renameSync(partial, dir);
  return dir;
}

/**
 * Publishes `records` in order with the Java client; resolves once it exited having published
 * all of them, rejects with its output otherwise.
 */
export async function publishWithJava(
  brokers: readonly string[],
  topics: TopicNames,
  records: readonly JavaRecord[],
): Promise<void> {
  const classpath = await kafkaClasspath(() => undefined);
  const classes = await compiled(classpath);
  const child = spawn(
    'java',
    [
      '-cp',
      `${classes}:${classpath}`,
      'JavaProducer',
      brokers.join(','),
      topics.edge,
      topics[
        'function-edge'
      ],
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  for (const { mode, source, key, line } of records) {
    if (line.includes('\n') || line.includes('\t')) {
      throw new Error(`a line for the Java producer holds a tab or a newline: ${line}`);
    }
    child.stdin.write(`${mode}\t${source}\t${key ?? ''}\t${line}\n`);
  }
  child.stdin.end();
  const code = await exited;
  if (code !== 0 || !output.includes(`published ${records.length}`)) {
    throw new Error(`the Java producer failed (exit ${code}):\n${output}`);
  }
}
