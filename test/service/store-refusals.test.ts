/**
 * A Redis that answers but refuses writes, under a consumer process folding a stream through
 * Kafka: full (`maxmemory` below what it holds, `noeviction`), a read-only replica (the Redis the
 * consumer writes to made a replica of another), failing snapshots (`MISCONF`: its dump directory
 * gone, `stop-writes-on-bgsave-error yes`), a user without the command (`NOPERM`: `ACL SETUSER`).
 * Each on a Redis of its own. While it lasts: the consumer's log says it once with what to do (no
 * stack, no line per batch), `store_writes_refused_total` counts it by reason,
 * `store_refusing_writes` says 1 and `/healthz` is not ok, naming it. Once lifted: one line says
 * writes are accepted again, the gauge says 0, `/healthz` is ok, and every answer equals the
 * reference evaluator: nothing was lost. An API process, which writes nothing, says in `/readyz`
 * that answers are going stale while the Redis's own `INFO` shows why (full, a replica, failing
 * snapshots; not another user's missing permission).
 *
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../tools/services/free-port.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { redisServerService } from '../../tools/services/redis.ts';
import type { Service } from '../../tools/services/service.ts';
import type { WriteRefusal } from '../../src/store/write-refusal.ts';
import { createWorld, exited, type World } from '../consumers/harness.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { describeWithServices } from '../support/services.ts';
import { startTestService } from '../support/service.ts';
import type { Service as StartedService } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';

type Client = ReturnType<typeof createClient>;

/** How one refusal is brought about and lifted, on the Redis the consumer writes to. */
interface Fault {
  readonly reason: WriteRefusal;
  /** Whether the Redis's `INFO` shows it (an API that writes nothing can tell). */
  readonly inInfo: boolean;
  /** The consumer's settings beyond the store's address (a login). */
  readonly env?: Readonly<Record<string, string>>;
  /** Before the consumer starts (a user to log in as). */
  prepare?(redis: Client): Promise<void>;
  /** Brings it about on `redis`, a client of `server`. */
  induce(redis: Client, server: Service): Promise<void>;
  lift(redis: Client): Promise<void>;
}

const PASSWORD = 'refusals-test-password';
/** How long each refusal lasts, ms; REFUSAL_TEST_HOLD_MS=20000 is an operator's 20 s. */
const HOLD_MS = Number(process.env.REFUSAL_TEST_HOLD_MS ?? 3_000);

/** Other Redis servers a fault starts (a master to replicate), stopped after the suite. */
const extras: Service[] = [];

async function startRedis(name: string, extraArgs: readonly string[] = []): Promise<Service> {
  const redis = redisServerService({ name, port: await freePort(), extraArgs: [...extraArgs] });
  await up(redis, () => undefined);
  return redis;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The value of one sample of the consumer's metrics, or null. */
async function sample(port: number, series: string): Promise<number | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? null : Number(line.slice(series.length + 1));
  } catch {
    return null;
  }
}

async function health(port: number): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: response.status, body: await response.text() };
}

const FAULTS: readonly Fault[] = [
  {
    reason: 'full',
    inInfo: true,
    induce: async (redis) => {
      await redis.configSet('maxmemory-policy', 'noeviction');
      await redis.configSet('maxmemory', '1');
    },
    lift: async (redis) => {
      await redis.configSet('maxmemory', '0');
    },
  },
  (() => {
    let other: Service | undefined;
    return {
      reason: 'readonly' as const,
      inInfo: true,
      induce: async (redis: Client, server: Service) => {
        // A second Redis takes over as master with the same data; this one follows it.
        other = await startRedis(`redis-refusal-master-${process.pid}`);
        extras.push(other);
        const master = await createClient({ url: other.address }).connect();
        try {
          await master.sendCommand(['REPLICAOF', '127.0.0.1', String(server.port)]);
          await until(
            'the other Redis in sync',
            async () => /master_link_status:up/.test(await master.info('replication')),
          );
          await master.sendCommand(['REPLICAOF', 'NO', 'ONE']);
        } finally {
          await master.close();
        }
        await redis.sendCommand(['REPLICAOF', '127.0.0.1', String(other.port)]);
      },
      lift: async (redis: Client) => {
        await redis.sendCommand(['REPLICAOF', 'NO', 'ONE']);
      },
    };
  })(),
  (() => {
    const dump = mkdtempSync(join(tmpdir(), 'refusal-dump-'));
    return {
      reason: 'misconf' as const,
      inInfo: true,
      induce: async (redis: Client) => {
        // Redis refuses writes for a failed snapshot only where it has a save point.
        await redis.configSet('save', '3600 1');
        await redis.configSet('stop-writes-on-bgsave-error', 'yes');
        await redis.configSet('dir', dump);
        rmSync(dump, { recursive: true, force: true });
        await redis.sendCommand(['BGSAVE']);
        await until(
          'the snapshot failed',
          async () => /rdb_last_bgsave_status:err/.test(await redis.info('persistence')),
        );
      },
      lift: async (redis: Client) => {
        mkdirSync(dump, { recursive: true });
        await redis.configSet('dir', dump);
        await until('a snapshot that succeeds', async () => {
          await redis.sendCommand(['BGSAVE']).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 200));
          return /rdb_last_bgsave_status:ok/.test(await redis.info('persistence'));
        });
        rmSync(dump, { recursive: true, force: true });
      },
    };
  })(),
  {
    reason: 'noperm',
    inInfo: false,
    env: { REDIS_USERNAME: 'rollups', REDIS_PASSWORD: PASSWORD },
    prepare: async (redis) => {
      await redis.sendCommand([
        'ACL',
        'SETUSER',
        'rollups',
        'on',
        `>${PASSWORD}`,
        '~*',
        '&*',
        '+@all',
      ]);
    },
    // Its writes go through EVALSHA; its reads through EVALSHA_RO, which it keeps.
    induce: async (redis) => {
      await redis.sendCommand(['ACL', 'SETUSER', 'rollups', '-evalsha', '-eval']);
    },
    lift: async (redis) => {
      await redis.sendCommand(['ACL', 'SETUSER', 'rollups', '+@all']);
    },
  },
];

describeWithServices(['kafka', 'redis-server'], 'a Redis that refuses writes', ({ kafka }) => {
  afterAll(async () => {
    for (const extra of extras.splice(0)) await down(extra);
  });

  for (const fault of FAULTS) {
    describe(`${fault.reason}`, () => {
      let redis: Service;
      let admin: Client;
      let world: World;
      let api: StartedService | undefined;

      beforeAll(async () => {
        redis = await startRedis(`redis-refusal-${fault.reason}-${process.pid}`, [
          '--enable-protected-configs',
          'yes',
        ]);
        admin = await createClient({ url: redis.address }).connect();
        world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.address });
        await fault.prepare?.(admin);
        api = await startTestService({
          config: loadConfig({
            KAFKA_BROKERS: kafka.brokers.join(','),
            KAFKA_TOPIC_PREFIX: world.prefix,
            REDIS_URL: redis.address,
            API_KEYS: 'refusals-test-key',
            PORT: '0',
          }),
          logger: createLogger('warn', 'refusals-api'),
          role: 'api',
          onFatal: (message) => {
            throw new Error(message);
          },
        });
      }, 60_000);

      afterAll(async () => {
        await api?.stop();
        await world?.close();
        await admin?.close();
        if (redis !== undefined) await down(redis);
      });

      /** The API's `/readyz` (ready throughout: it answers, from rollups going stale). */
      const readiness = async (): Promise<{ status: string; stale?: string }> => {
        const response = await fetch(`${api?.url ?? ''}/readyz`);
        expect(response.status).toBe(200);
        return await response.json() as { status: string; stale?: string };
      };

      test('said once, counted, unhealthy while it lasts; nothing lost after', async () => {
        const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
        const stream = generatedStream(nowUs, 3_000);
        const half = Math.floor(stream.lines.length / 2);
        const port = await freePort();
        const consumer = world.consumerProcess(
          { METRICS_PORT: String(port), LOG_LEVEL: 'info', ...fault.env },
          'node',
          { stdout: 'pipe' },
        );
        let log = '';
        let refusedCount: number | null = null;
        consumer.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
        const refusing = `store_refusing_writes{reason="${fault.reason}"}`;
        const refused = `store_writes_refused_total{reason="${fault.reason}"}`;
        try {
          await world.publish(stream.lines.slice(0, half));
          await world.drained(60_000);
          expect(await sample(port, refusing)).toBe(0);

          await fault.induce(admin, redis);
          await world.publish(stream.lines.slice(half));
          await until('the gauge says so', async () => (await sample(port, refusing)) === 1);
          const during = await health(port);
          expect(during.status).toBe(503);
          expect(during.body).toContain(`the store refuses writes (${fault.reason})`);
          if (fault.inInfo) {
            await until('the API says answers go stale', async () =>
              (await readiness()).stale ===
                `the store refuses writes (${fault.reason}): answers are going stale`);
          }
          // Refused batches keep being retried for a while: one line said, however many.
          await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
          expect(await sample(port, refused)).toBeGreaterThan(1);

          await fault.lift(admin);
          await world.drained(60_000);
          await until(
            'the gauge says it is over',
            async () => (await sample(port, refusing)) === 0,
          );
          expect((await health(port)).status).toBe(200);
          refusedCount = await sample(port, refused);
          await until(
            'the API says nothing of staleness',
            async () => (await readiness()).stale === undefined,
          );
        } finally {
          consumer.kill('SIGTERM');
          await exited(consumer);
        }
        const lines = log.split('\n').filter((line) => line !== '');
        const about = lines.filter((line) =>
          /refuses writes|accepts writes|batch failed/.test(line)
        );
        console.log(
          `${fault.reason}, held ${HOLD_MS} ms: ${refusedCount} writes refused, ` +
            `${about.length} log lines about it:\n${about.join('\n')}`,
        );
        expect(about.length, about.join('\n')).toBeLessThanOrEqual(3);
        expect(about.filter((line) => line.includes('accepts writes again'))).toHaveLength(1);
        expect(log).not.toContain('batch failed; retrying');
        expect(log).not.toMatch(/\\n\s+at \S/);
        await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
      }, 180_000 + HOLD_MS);
    });
  }
});

describeWithServices(['redis-server'], 'the embedded service on a Redis that fills up', () => {
  let redis: Service;
  let admin: Client;
  let service: StartedService | undefined;
  const key = 'refusals-embedded-key';

  beforeAll(async () => {
    redis = await startRedis(`redis-refusal-embedded-${process.pid}`);
    admin = await createClient({ url: redis.address }).connect();
    service = await startTestService({
      config: loadConfig({ REDIS_URL: redis.address, API_KEYS: key, PORT: '0' }),
      logger: createLogger('silent', 'refusals-embedded'),
      role: 'all',
      onFatal: (message) => {
        throw new Error(message);
      },
    });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await admin?.close();
    if (redis !== undefined) await down(redis);
  });

  test('its /healthz is not ok while its ingest is refused, and ok once Redis has room', async () => {
    const url = service?.url ?? '';
    const ingest = (line: string) =>
      fetch(`${url}/api/ingest/edge`, {
        method: 'POST',
        headers: { 'X-API-KEY': key, 'Content-Type': 'application/x-ndjson' },
        body: line,
      });
    const { lines } = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 20);
    const edge = lines.filter((line) => line.source === 'edge').map((line) => line.line);
    expect((await ingest(edge[0] ?? '')).status).toBe(202);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    await admin.configSet('maxmemory-policy', 'noeviction');
    await admin.configSet('maxmemory', '1');
    const refused = await ingest(edge[1] ?? '');
    expect(refused.status).toBe(503);
    const during = await fetch(`${url}/healthz`);
    expect(during.status).toBe(503);
    expect(await during.text()).toContain('the store refuses writes (full)');

    await admin.configSet('maxmemory', '0');
    expect((await ingest(edge[1] ?? '')).status).toBe(202);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
