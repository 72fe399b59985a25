/**
 * The Java classpath of the development Kafka broker, resolved by Maven from Maven Central
 * (tools/services/kafka/pom.xml) into `.cache/m2`, and cached per content of the POM so that a
 * warm start runs no Maven at all.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR, REPO_ROOT, serviceDir } from './paths.ts';
import { findOnPath, runLogged } from './run.ts';

/** The POM that lists the broker's artifacts. */
export const KAFKA_POM: string = join(REPO_ROOT, 'tools/services/kafka/pom.xml');

/** The Kafka version the POM pins (its `kafka.version` property). */
export function kafkaVersion(): string {
  const match = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(KAFKA_POM, 'utf8'));
  if (match?.[1] === undefined) throw new Error(`${KAFKA_POM} has no <kafka.version> property`);
  return match[1];
}

/**
 * Returns the broker's classpath (jar paths joined with `:`), running
 * `mvn dependency:build-classpath` only when the POM changed or a cached jar is missing.
 *
 * @example
 * ```ts
 * const classpath = await kafkaClasspath((line) => console.log(line));
 * ```
 */
export function kafkaClasspath(log: (line: string) => void): Promise<string> {
  const pom = readFileSync(KAFKA_POM);
  const digest = createHash('sha256').update(pom).digest('hex').slice(0, 16);
  const cacheFile = join(CACHE_DIR, 'kafka', `classpath-${digest}.txt`);
  const cached = readClasspath(cacheFile);
  if (cached !== undefined) return Promise.resolve(cached);
  // Two brokers started together (services:up --secure) share one Maven run: two would write
  // the same partial file and repository at once.
  let running = resolving.get(cacheFile);
  if (running === undefined) {
    running = resolveClasspath(cacheFile, log).finally(() => resolving.delete(cacheFile));
    resolving.set(cacheFile, running);
  }
  return running;
}

/** Resolutions under way in this process, by cache file. */
const resolving = new Map<string, Promise<string>>();

async function resolveClasspath(cacheFile: string, log: (line: string) => void): Promise<string> {
  if (findOnPath('mvn') === undefined) {
    throw new Error(
      'Maven (mvn) is needed once, to fetch Apache Kafka from Maven Central, and is not ' +
        'on PATH. Install it (Debian/Ubuntu: apt-get install -y maven) and run this again.',
    );
  }
  const repository = join(CACHE_DIR, 'm2');
  log(
    `resolving Apache Kafka ${kafkaVersion()} from Maven Central into .cache/m2 (first run only)`,
  );
  mkdirSync(join(CACHE_DIR, 'kafka'), { recursive: true });
  const partial = `${cacheFile}.partial`;
  await runLogged('mvn', [
    '--batch-mode',
    '--quiet',
    '--file',
    KAFKA_POM,
    `-Dmaven.repo.local=${repository}`,
    'dependency:build-classpath',
    `-Dmdep.outputFile=${partial}`,
    '-Dmdep.includeScope=runtime',
  ], { logFile: join(serviceDir('kafka'), 'maven.log') });
  const resolved = readClasspath(partial);
  if (resolved === undefined) {
    throw new Error(`Maven succeeded but ${partial} lists no existing jar files`);
  }
  renameSync(partial, cacheFile);
  return resolved;
}

function readClasspath(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const jars = readFileSync(file, 'utf8').trim().split(':').filter((jar) => jar !== '');
  if (jars.length === 0 || !jars.every((jar) => existsSync(jar))) return undefined;
  return jars.join(':');
}
