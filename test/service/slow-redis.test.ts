/**
 * Issue 35, item 6: Redis paused (`CLIENT PAUSE 20000 ALL`: connections stay open, no command is
 * answered) while events arrive. A consumer process and an API run on a Redis of this test's own.
 * While Redis is paused the API answers 503 with `Retry-After` once its store deadline passes
 * (never a request that hangs for the whole pause), the consumers wait for their flushes without
 * folding beyond their bound (their peak RSS is read from `/proc` and printed), and afterwards
 * every event is folded exactly once: the answers equal the reference evaluator.
 */
import { readFileSync, rmSync } from 'node:fs';
import { type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Service as RunningService } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { redisServerService } from '../../tools/services/redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { TEST_KEY } from '../api/helpers/app.ts';
import { createWorld, exited, type World } from '../consumers/harness.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { startTestService } from '../support/service.ts';
import { describeWithServices } from '../support/services.ts';

/** How long Redis is paused, in ms. */
const PAUSE_MS = 20_000;

/** The API's store deadline in this test, in ms (well inside the pause). */
const STORE_TIMEOUT_MS = 2_000;

/** A process's resident set now and at its peak (`VmRSS`, `VmHWM`), in MiB. */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => {
    const found = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (found === null) throw new Error(`/proc/${pid}/status has no ${name}`);
    return Number(found[1]) / 1024;
  };
  return { now: field('VmRSS'), peak: field('VmHWM') };
}

describeWithServices(['kafka', 'redis-server'], 'Redis paused under load', ({ kafka }) => {
  let redis: Service;
  let world: World;
  let consumers: ChildProcess | null = null;
  let api: RunningService | null = null;

  beforeAll(async () => {
    redis = redisServerService({ name: 'redis-paused', port: await freePort(), extraArgs: [] });
    rmSync(serviceDir(redis.name), { recursive: true, force: true });
    await up(redis, () => undefined);
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.address });
    api = await startTestService({
      config: loadConfig({
        REDIS_URL: redis.address,
        API_KEYS: TEST_KEY,
        PORT: '0',
        STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
      }),
      logger: createLogger('silent', 'slow-redis'),
      role: 'api',
      onFatal: (message) => {
        throw new Error(message);
      },
    });
  }, 120_000);

  afterAll(async () => {
    if (consumers !== null) {
      consumers.kill('SIGTERM');
      await exited(consumers);
    }
    await api?.stop();
    await world?.close();
    if (redis !== undefined) await down(redis);
  }, 90_000);

  /** The highest `VmRSS` of `pid` while `work` runs, in MiB (sampled every 200 ms). */
  async function peakWhile(pid: number, work: () => Promise<void>): Promise<number> {
    let peak = rss(pid).now;
    const sampling = setInterval(() => {
      peak = Math.max(peak, rss(pid).now);
    }, 200);
    try {
      await work();
    } finally {
      clearInterval(sampling);
    }
    return Math.max(peak, rss(pid).now);
  }

  /** An API call with the test key. */
  const call = (path: string) =>
    fetch(`${api?.url ?? ''}${path}`, { headers: { 'X-API-KEY': TEST_KEY } });

  /** The stream of the first test; the second adds to it. */
  const first = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 6_000);

  test('503 with Retry-After while paused, bounded consumers, exact after', async () => {
    const { nowUs } = first;
    const stream = first;
    const third = Math.floor(stream.lines.length / 3);
    // Small flushes: under this load a partition reaches its bound of folded, unwritten events
    // while Redis is paused, and folding must wait there.
    const child = world.consumerProcess({ FLUSH_EVENTS: '100' });
    consumers = child;
    const pid = child.pid;
    if (pid === undefined) throw new Error('the consumer process did not start');

    await world.publish(stream.lines.slice(0, third));
    await world.drained(120_000);
    const warm = rss(pid).now;
    // The same load with Redis answering: what folding it costs anyway.
    const unpaused = await peakWhile(pid, async () => {
      await world.publish(stream.lines.slice(third, 2 * third));
      await world.drained(120_000);
    });

    // The last third arrives while Redis answers nothing for 20 s.
    const admin = await createClient({ url: redis.address }).connect();
    const pausedAt = Date.now();
    const paused = await peakWhile(pid, async () => {
      admin.on('error', () => undefined);
      const publishing = world.publish(stream.lines.slice(2 * third));
      await admin.sendCommand(['CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL']);
      const project = `paused${randomUUID().slice(0, 14)}`;
      // Asked while paused: each answered 503 once the store deadline passed. A 503 is itself
      // the proof that nothing waited for the pause to end: after it, the store answers.
      const answers = await Promise.all([
        call(`/api/endpoints/functions.invocation-stats?project=${project}`),
        call(`/api/endpoints/logs.all?project=${project}&project_tier=PRO`),
        call(`/api/endpoints/usage.api-counts?project=${project}&interval=hourly`),
        call('/readyz'),
      ]);
      console.log(`slow Redis: the API answered ${Date.now() - pausedAt} ms into the pause`);
      for (const answer of answers) {
        expect(answer.status, `${answer.url}: ${await answer.text()}`).toBe(503);
        expect(answer.headers.get('retry-after'), answer.url).toBe('1');
      }
      await publishing;
      await world.drained(120_000);
    }).finally(() => admin.close());
    console.log(
      `slow Redis: consumer RSS ${warm.toFixed(0)} MiB warm; highest ${unpaused.toFixed(0)} MiB ` +
        `folding ${third} lines with Redis answering, ${paused.toFixed(0)} MiB folding ` +
        `${stream.lines.length - 2 * third} lines around a ${PAUSE_MS / 1000} s pause ` +
        `(VmHWM at the end ${rss(pid).peak.toFixed(0)} MiB)`,
    );
    await expectStoreMatchesReference(world.store, stream.events, nowUs, 60);
  }, 240_000);

  test('while only writes are paused, reads are answered, exactly', async () => {
    // What Redis does for a moment during a manual failover, and an operator for longer: reads
    // go on, so the API must not wait for the writes to resume.
    const more = generatedStream(first.nowUs, 300);
    const admin = await createClient({ url: redis.address }).connect();
    admin.on('error', () => undefined);
    try {
      await world.publish(more.lines);
      await world.drained(120_000);
      await admin.sendCommand(['CLIENT', 'PAUSE', '120000', 'WRITE']);
      const project = more.events[0]?.project ?? '';
      const answers = await Promise.all([
        call(`/api/endpoints/functions.invocation-stats?project=${project}&interval=1min`),
        call(`/api/endpoints/logs.all?project=${project}&project_tier=ENTERPRISE`),
        call(`/api/endpoints/usage.api-counts?project=${project}&interval=minutely`),
        call('/readyz'),
      ]);
      for (const answer of answers) {
        expect(answer.status, `${answer.url}: ${await answer.text()}`).toBe(200);
      }
      const events = [...first.events, ...more.events];
      await expectStoreMatchesReference(world.store, events, first.nowUs, 60);
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      await admin.close().catch(() => undefined);
    }
  }, 180_000);
});
