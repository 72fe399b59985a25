/**
 * A machine without `redis-server` and without Java: the test setup runs with both taken off
 * `PATH`, outside CI, on two suites that need them (a Redis of their own; Kafka's Java client).
 * The run must pass with those suites skipped behind the one banner, which names each missing
 * tool and the command that installs it; nothing fails and nothing is installed.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { describeWithServices } from './services.ts';

/** The programs taken away: Redis's and the JDK's. */
const TAKEN = new Set(['redis-server', 'redis-cli', 'java', 'javac']);

/** A directory of links to every program on `path` but those in `taken`: a PATH without them. */
function pathWithout(path: string, taken: ReadonlySet<string>): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'path-without-'));
  const linked = new Set<string>();
  for (const source of path.split(delimiter)) {
    if (source === '') continue;
    let names: string[];
    try {
      names = readdirSync(source);
    } catch {
      continue;
    }
    for (const name of names) {
      if (taken.has(name) || linked.has(name)) continue;
      linked.add(name);
      symlinkSync(join(source, name), join(dir, name));
    }
  }
  return { dir, path: dir };
}

/** Runs `command` to its end; its exit code and its output, both streams together. */
function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describeWithServices(
  ['kafka', 'redis'],
  'the test setup on a machine without Redis and Java',
  () => {
    const bare = pathWithout(process.env['PATH'] ?? '', TAKEN);

    afterAll(() => rmSync(bare.dir, { recursive: true, force: true }));

    test(
      'their suites are skipped behind the banner, which names each tool and its install',
      async () => {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          PATH: bare.path,
          CI: '',
          REQUIRE_SERVICES: '',
          TEST_INSTALL: '',
          TEST_START_SERVICES: '0',
          NO_COLOR: '1',
        };
        const { code, output } = await run(process.execPath, [
          'node_modules/vitest/vitest.mjs',
          'run',
          '--project',
          'services',
          'test/store/redis-before-7.test.ts',
          'test/consumers/java-producer.test.ts',
        ], env);
        expect(code, output.slice(-4_000)).toBe(0);
        expect(output).toContain('SUITE(S) SKIPPED: services or tools are missing');
        expect(output).toMatch(
          /redis-server\s+redis-server and redis-cli not on PATH: install with apt-get install -y redis-server/,
        );
        expect(output).toMatch(
          /jdk\s+java and javac not on PATH: install with apt-get install -y openjdk-17-jdk-headless/,
        );
        expect(output).toContain(
          'test/store/redis-before-7.test.ts > RedisStore on a Redis without',
        );
        expect(output).toContain(
          "test/consumers/java-producer.test.ts > events of Apache Kafka's Java client",
        );
        expect(output).not.toMatch(/\b[1-9]\d* failed/);
        expect(output).not.toContain('installing');
      },
      120_000,
    );
  },
);
