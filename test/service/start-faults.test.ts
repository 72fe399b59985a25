/**
 * Issue 12, items 4, 9 and 10, and the start race, with the roles as users start them (`npm run
 * api`, `npm run consumers`) on the real broker and Redis:
 *
 * - consumers and API started at the same instant on topics nobody created yet, five times in a
 *   row: both come up, and an event ingested through the API is answered by it;
 * - a store that cannot be reached: the process keeps running, says so in one line (no stack
 *   trace, no unhandled rejection), answers 503 on /readyz, and stops cleanly;
 * - a Redis whose maxmemory-policy evicts: refused with a message saying what to set, unless
 *   REDIS_ALLOW_EVICTION=1;
 * - no Node warning and no kafkajs partitioner warning in what a newcomer sees.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { extraBrokerService } from '../../tools/services/kafka.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { redisServerService } from '../../tools/services/redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { describeWithServices, redisDatabaseUrl } from '../support/services.ts';
import { freePort } from '../../tools/services/free-port.ts';

const KEY = 'start-faults-test-key-0123456789';

/** The package's scripts, as `npm run` runs them. */
const SCRIPTS = (JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<'api' | 'consumers', string>;
}).scripts;

/** A role started as a user would, with its output collected. */
interface Role {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the URL once the banner says where it listens. */
  url(timeoutMs: number): Promise<string>;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Resolves with the exit code once it exits by itself (or null after `timeoutMs`). */
  exit(timeoutMs: number): Promise<number | null | 'running'>;
}

function startRole(script: 'api' | 'consumers', env: Record<string, string>): Role {
  const base = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(KAFKA_|REDIS_|UPSTASH_|API_KEYS|STORE$|PORT$|DEMO$)/.test(name)) delete base[name];
  }
  // The npm script itself, exec'd by a shell so that the process signalled is the service (npm
  // would end by the signal instead of passing on the service's exit code).
  const child = spawn('sh', ['-c', `exec ${SCRIPTS[script]}`], {
    env: {
      ...base,
      PATH: `${resolve('node_modules/.bin')}:${base['PATH'] ?? ''}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      API_KEYS: KEY,
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => output,
    async url(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (url !== undefined) return url;
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`npm run ${script} did not start:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      return await exited;
    },
    exit: (timeoutMs) =>
      Promise.race([
        exited,
        new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), timeoutMs)),
      ]),
  };
}

/** Waits until `url`/readyz answers 200; rejects with its last answer after `timeoutMs`. */
async function ready(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const response = await fetch(`${url}/readyz`);
    if (response.status === 200) return;
    last = `${response.status} ${await response.text()}`;
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What must never reach a newcomer's terminal. */
function expectCleanOutput(output: string): void {
  expect(output).not.toMatch(/Warning:/);
  expect(output).not.toMatch(/switched default partitioner/);
  expect(output).not.toMatch(/could not start|unexpected error|Unhandled/i);
  // A stack trace: a line of a frame, in text or inside a JSON log line.
  expect(output).not.toMatch(/\n\s+at \S|\\n\s+at \S/);
}

describeWithServices(
  ['kafka', 'redis', 'redis-server', 'jdk', 'maven'],
  'starting the roles',
  ({ kafka, redis }) => {
    const kafkaEnv = (prefix: string) => ({
      KAFKA_BROKERS: kafka.brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_GROUP_ID: `${prefix}group`,
      TOPIC_PARTITIONS: '2',
      FLUSH_INTERVAL_MS: '100',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    });

    test(
      'consumers and API started at the same instant on a fresh broker, five times',
      async () => {
        // A broker of its own with an empty data folder, as a new user's is: the first group ever
        // joined there finds the offsets topic still loading, which the shared broker is long past.
        const broker = extraBrokerService({
          name: 'kafka-start-race',
          port: await freePort(),
          controllerPort: await freePort(),
        });
        rmSync(serviceDir(broker.name), { recursive: true, force: true });
        await up(broker, () => undefined);
        try {
          for (let round = 1; round <= 5; round++) {
            await startRace(round, broker.address);
          }
        } finally {
          await down(broker);
        }
      },
      300_000,
    );

    async function startRace(round: number, brokers: string): Promise<void> {
      const prefix = `start-race-${round}-${randomUUID().slice(0, 8)}.`;
      const project = `startrace${round}${randomUUID().replaceAll('-', '').slice(0, 10)}`;
      // A database no other file empties: the services tier may run at the same time.
      const redisUrl = redisDatabaseUrl(redis.url, 11);
      const env = { ...kafkaEnv(prefix), KAFKA_BROKERS: brokers, REDIS_URL: redisUrl };
      const roles = [startRole('consumers', env), startRole('api', env)];
      const [consumers, api] = roles;
      if (consumers === undefined || api === undefined) throw new Error('unreachable');
      try {
        const url = await api.url(30_000);
        await ready(url, 60_000);
        const nowUs = Date.now() * 1000;
        const event = {
          id: `race-${round}`,
          timestamp: nowUs,
          metadata: [{
            project_ref: project,
            function_id: 'f',
            execution_time_ms: 12,
            response: [{ status_code: 200 }],
          }],
        };
        const posted = await fetch(`${url}/api/ingest/function-edge`, {
          method: 'POST',
          headers: { 'X-API-KEY': KEY, 'Content-Type': 'application/json' },
          body: JSON.stringify([event]),
        });
        expect(posted.status, await posted.text()).toBe(202);
        const deadline = Date.now() + 30_000;
        let count = 0;
        while (count !== 1 && Date.now() < deadline) {
          const answer = await fetch(
            `${url}/api/endpoints/functions.invocation-stats?project=${project}&interval=5min`,
            { headers: { 'X-API-KEY': KEY } },
          );
          expect(answer.status).toBe(200);
          const body = await answer.json() as { result: { count: number }[] };
          count = body.result.reduce((sum, row) => sum + row.count, 0);
          if (count !== 1) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(count, `round ${round}`).toBe(1);
        for (const role of roles) expect(role.child.exitCode).toBeNull();
        expect(await consumers.stop()).toBe(0);
        expect(await api.stop()).toBe(0);
        for (const role of roles) expectCleanOutput(role.output());
      } finally {
        for (const role of roles) await role.stop();
      }
    }

    test('a store that cannot be reached: running, one clear line, 503 on /readyz', async () => {
      const port = await freePort();
      const env = { ...kafkaEnv(`unreachable-${randomUUID().slice(0, 8)}.`) };
      const consumers = startRole('consumers', { ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
      const api = startRole('api', { ...env, REDIS_URL: `redis://127.0.0.1:${port}` });
      try {
        const url = await api.url(30_000);
        const readyz = await fetch(`${url}/readyz`);
        expect(readyz.status).toBe(503);
        expect(readyz.headers.get('retry-after')).toBe('1');
        expect(await readyz.text()).toContain('store: not answering');
        const answer = await fetch(
          `${url}/api/endpoints/functions.invocation-stats?project=abcdefghijklmnopqrst`,
          { headers: { 'X-API-KEY': KEY } },
        );
        expect(answer.status).toBe(503);
        expect(await consumers.exit(5_000)).toBe('running');
        for (const role of [consumers, api]) {
          const lines = role.output().split('\n').filter((line) =>
            line.includes(`the store (redis://127.0.0.1:${port}) is not reachable; retrying`)
          );
          expect(lines, role.output()).toHaveLength(1);
        }
        expect(await consumers.stop()).toBe(0);
        expect(await api.stop()).toBe(0);
        for (const role of [consumers, api]) {
          expect(role.output()).not.toMatch(/\n\s+at \S|\\n\s+at \S|Unhandled|unexpected error/);
        }
      } finally {
        await consumers.stop();
        await api.stop();
      }
    }, 60_000);

    describe('a Redis that may evict keys', () => {
      let server: Service | undefined;
      let url = '';

      beforeAll(async () => {
        server = redisServerService({
          name: 'redis-evicting',
          port: await freePort(),
          extraArgs: ['--maxmemory-policy', 'allkeys-lru'],
        });
        await up(server, () => undefined);
        url = server.address;
      });

      afterAll(async () => {
        if (server !== undefined) await down(server);
      });

      test('is refused with what to set', async () => {
        const api = startRole('api', { REDIS_URL: url });
        try {
          expect(await api.exit(20_000)).toBe(2);
          expect(api.output()).toContain("Redis's maxmemory-policy is allkeys-lru");
          expect(api.output()).toContain('noeviction');
          expect(api.output()).toContain('REDIS_ALLOW_EVICTION=1');
        } finally {
          await api.stop();
        }
      }, 30_000);

      test('runs with REDIS_ALLOW_EVICTION=1', async () => {
        const api = startRole('api', { REDIS_URL: url, REDIS_ALLOW_EVICTION: '1' });
        try {
          await ready(await api.url(30_000), 20_000);
          expect(await api.stop()).toBe(0);
        } finally {
          await api.stop();
        }
      }, 30_000);
    });
  },
);
