/**
 * Issue 35: a Redis that stops answering while its connections stay up (its process stopped
 * with SIGSTOP, as a stalled VM or a `CLIENT PAUSE` longer than the deadline does) must not hold
 * a consumer's batch for as long as it is away. kafkajs heartbeats only between batches: a batch
 * held past the group's session timeout gets its member evicted, and the group rebalances. With a
 * deadline on every store call the batch fails, is fetched again, and the member heartbeats in
 * between; the outage is said (log, `consumer_batch_failures_total{reason="store_timeout"}`), and
 * afterwards every event is folded exactly once. A second test proves that a write which applied
 * after its caller gave up (the call cannot be cancelled) is never applied twice: the commits'
 * answers are held back past the deadline, and the retries find their events already held.
 */
import { type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { storeWithDeadline } from '../../src/store/deadline.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { startOwnRedis, stopOwnRedis } from '../../tools/services/own-redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { signal } from '../support/own-services.ts';
import { until } from '../support/poll.ts';
import { describeWithServices } from '../support/services.ts';
import { openStore } from '../support/store-target.ts';
import { createWorld, exited, type World } from './harness.ts';
import { batchFailures, memberMetrics } from './member-metrics.ts';

/** The group's session timeout in this test: the broker's least. */
const SESSION_TIMEOUT_MS = 6_000;

/** How long Redis is stopped: more than three session timeouts. */
const STOPPED_MS = 20_000;

describeWithServices(['kafka', 'redis-server'], 'a Redis that stops answering', ({ kafka }) => {
  // A Redis of its own: it is stopped.
  let redis: Service;
  let world: World | null = null;
  let consumers: ChildProcess | null = null;
  let runner: ConsumerRunner | null = null;
  let store: RollupStore | null = null;

  beforeAll(async () => {
    redis = await startOwnRedis('redis-stopped');
  }, 120_000);

  afterAll(async () => {
    // Never left stopped, whatever failed.
    if (redis !== undefined) signal(redis, 'SIGCONT');
    if (consumers !== null) {
      consumers.kill('SIGTERM');
      await exited(consumers);
    }
    await runner?.stop();
    await store?.close();
    await world?.close();
    if (redis !== undefined) await stopOwnRedis(redis);
  }, 90_000);

  test('stopped for longer than the session timeout: no eviction, exact after', async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.address });
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 3_000);
    const half = Math.floor(stream.lines.length / 2);
    const port = await freePort();
    const logged: string[] = [];
    const child = world.consumerProcess(
      {
        METRICS_PORT: String(port),
        KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
        FLUSH_EVENTS: '200',
        LOG_LEVEL: 'info',
      },
      'node',
      { stdout: 'pipe' },
    );
    consumers = child;
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const raw of chunk.toString('utf8').split('\n')) {
        if (raw.startsWith('{')) logged.push((JSON.parse(raw) as { msg: string }).msg);
      }
    });
    const joined = await until('the consumer to join', 120_000, async () => {
      const metrics = await memberMetrics(port);
      return metrics !== null && metrics.joins > 0 ? metrics : null;
    });

    await world.publish(stream.lines.slice(0, half));
    await world.drained(120_000);

    // The second half arrives while Redis answers nothing for more than three session timeouts.
    signal(redis, 'SIGSTOP');
    try {
      await world.publish(stream.lines.slice(half));
      await new Promise((resolve) => setTimeout(resolve, STOPPED_MS));
    } finally {
      signal(redis, 'SIGCONT');
    }
    await world.drained(180_000);
    await expectStoreMatchesReference(world.store, stream.events, nowUs, 60);

    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const after = await memberMetrics(port);
    expect(after?.joins, 'joins of the group: the member was evicted while Redis was stopped')
      .toBe(joined.joins);
    expect(batchFailures(text, 'store_timeout'), 'batches failed for a store timeout')
      .toBeGreaterThan(0);
    expect(logged).toContain('the store (for the consumers) is not reachable; retrying');
    expect(logged.some((line) => /^the store \(for the consumers\) is reachable again/.test(line)))
      .toBe(true);
    expect(logged.filter((line) => line.startsWith('the consumers give up on a store call after ')))
      .toHaveLength(1);
  }, 400_000);

  test('a commit that applied after its deadline is not applied again by the retry', async () => {
    consumers?.kill('SIGTERM');
    if (consumers !== null) await exited(consumers);
    consumers = null;
    await world?.close();
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.address });
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 1_500);
    const deadlineMs = 500;
    // The first commits answer only well after the deadline, once applied in Redis: what a
    // commit under way when Redis stopped does once it runs again.
    let lateLeft = 6;
    let appliedLate = 0;
    const real = await openStore(world.target);
    store = real;
    const lateCommit: RollupStore['commitProject'] = async (commit) => {
      const result = await real.commitProject(commit);
      if (lateLeft > 0) {
        lateLeft -= 1;
        if (result.outcome === 'applied') appliedLate += 1;
        await new Promise((resolve) => setTimeout(resolve, 3 * deadlineMs));
      }
      return result;
    };
    const lateAnswers = new Proxy(real, {
      get: (target, name: keyof RollupStore) =>
        name === 'commitProject' ? lateCommit : target[name].bind(target),
    });
    let skipped = 0;
    let timeouts = 0;
    runner = world.runner({
      store: storeWithDeadline(lateAnswers, deadlineMs),
      flushEvents: 200,
      onFlush: (report) => {
        skipped += report.skipped;
      },
      onError: (error) => {
        if (error instanceof Error && error.name === 'StoreTimeoutError') timeouts += 1;
      },
    });
    await runner.start();
    await world.publish(stream.lines);
    await world.drained(180_000);
    await expectStoreMatchesReference(world.store, stream.events, nowUs, 60);
    expect(appliedLate, 'commits applied whose answer came after the deadline').toBeGreaterThan(0);
    expect(timeouts, 'flushes failed for a store timeout').toBeGreaterThan(0);
    expect(skipped, 'messages the retries found already held').toBeGreaterThan(0);
  }, 300_000);
});
