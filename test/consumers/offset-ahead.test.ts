/**
 * Issue 12, item 8: a stored offset above the partition's end (the topic was deleted and created
 * again, or its data moved to another cluster). Kafka answers a fetch beyond the end from the
 * earliest offset, so every message would look already held and be skipped, silently. The
 * consumers must say so and pause the partition instead; after the documented remedy (empty the
 * store) they rebuild what the topic holds, exactly.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AheadReport, ConsumerRunner } from '../../consumers/runner.ts';
import { ensureTopics } from '../../src/kafka/topics.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import { until } from '../support/poll.ts';
import { describeWithServices } from '../support/services.ts';
import { emptyStore } from '../support/store-target.ts';
import {
  expectStoreMatchesReference,
  generatedStream,
  validEvents,
} from '../rollup/fold-and-read.ts';
import { createWorld, PARTITIONS, type World } from './harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithServices(['kafka', 'redis'], 'a stored offset beyond the partition', (services) => {
  let world: World;
  let runner: ConsumerRunner | null = null;
  let second: ConsumerRunner | null = null;
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const before = generatedStream(nowUs, 1_500);
  const after = generatedStream(nowUs, 150);

  beforeAll(async () => {
    world = await createWorld(services.kafka.brokers, { kind: 'redis', url: services.redis.url });
  }, 60_000);

  afterAll(async () => {
    await second?.stop();
    await runner?.stop();
    await world?.close();
  }, 60_000);

  /** A member of the world's group, not started, with what it reports about paused partitions. */
  function watchedRunner() {
    const reports: AheadReport[] = [];
    const cleared: string[] = [];
    const runner = world.runner({
      offsetCheckMs: 250,
      onAhead: (report) => reports.push(report),
      onAheadCleared: (stream, why) => cleared.push(`${stream} ${why}`),
    });
    return { runner, reports, cleared };
  }

  /**
   * Deletes the source topics and creates them again, empty, with the same names. A deletion
   * lands a moment after its request: each topic is first waited out of the listing (else
   * `ensureTopics` finds it there, creates nothing, and the topic is gone for good), then every
   * partition of each waited back at offset 0.
   */
  async function recreateTopics(): Promise<void> {
    const sources = [world.topics.edge, world.topics['function-edge']];
    await world.admin.deleteTopics({ topics: sources });
    await until('the deleted topics to leave the listing', 60_000, async () => {
      const listed = new Set(await world.admin.listTopics());
      const still = sources.filter((topic) => listed.has(topic));
      if (still.length > 0) throw new Error(`${still.join(', ')} still listed`);
      return true;
    });
    await until('the topics created again, every partition empty', 60_000, async () => {
      await ensureTopics(world.admin, { partitions: PARTITIONS, topics: sources });
      const ends = await Promise.all(sources.map((t) => world.admin.fetchTopicOffsets(t)));
      const empty = ends.every((offsets) =>
        offsets.length === PARTITIONS && offsets.every((entry) => entry.high === '0')
      );
      if (empty) return true;
      const seen = ends.map((offsets) => offsets.map((entry) => entry.high).join(' '));
      throw new Error(`partitions' ends: ${seen.join(' / ')}`);
    });
  }

  test('is reported and paused, nothing skipped; rebuilt exactly after the remedy', async () => {
    runner = world.runner({ offsetCheckMs: 250 });
    await runner.start();
    await world.publish(before.lines);
    await world.drained(120_000);
    await runner.stop();
    runner = null;

    await recreateTopics();
    const storedBefore = new Map<string, number | null>();
    for (const topic of [world.topics.edge, world.topics['function-edge']]) {
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const stream = `${topic}/${partition}`;
        storedBefore.set(stream, await world.store.readOffset(resumeKey(stream)));
      }
    }
    // Fewer events than before in every partition's new life.
    await world.publish(after.lines);

    const first = watchedRunner();
    const { reports, cleared } = first;
    runner = first.runner;
    await runner.start();
    const ends = new Map<string, number>();
    for (const topic of [world.topics.edge, world.topics['function-edge']]) {
      for (const { partition, high } of await world.admin.fetchTopicOffsets(topic)) {
        ends.set(`${topic}/${partition}`, Number(high));
      }
    }
    const ahead = [...storedBefore].filter(([stream, stored]) =>
      stored !== null && stored > (ends.get(stream) ?? 0)
    ).map(([stream]) => stream).sort();
    expect(ahead.length).toBeGreaterThan(PARTITIONS);
    const deadline = Date.now() + 30_000;
    while (new Set(reports.map((report) => report.stream)).size < ahead.length) {
      if (Date.now() > deadline) break;
      await sleep(100);
    }
    expect([...new Set(reports.map((report) => report.stream))].sort()).toEqual(ahead);
    for (const report of reports) {
      expect(report.storedOffset).toBe(storedBefore.get(report.stream));
      expect(report.partitionEnd).toBe(ends.get(report.stream));
    }
    // A second member joins: the paused partitions that move to it are its to report, and the
    // first member stops counting them.
    const watched = watchedRunner();
    const { reports: secondReports, cleared: secondCleared } = watched;
    second = watched.runner;
    await second.start();
    const moved = () =>
      cleared.filter((entry) => entry.endsWith(' moved')).map((e) => e.split(' ')[0]);
    const rebalanced = Date.now() + 60_000;
    while (
      moved().length === 0 || new Set(secondReports.map((r) => r.stream)).size < moved().length
    ) {
      if (Date.now() > rebalanced) break;
      await sleep(100);
    }
    expect(moved().length).toBeGreaterThan(0);
    expect([...new Set(secondReports.map((report) => report.stream))].sort())
      .toEqual([...moved()].sort());
    expect(runner.ahead + second.ahead).toBe(ahead.length);

    // Paused, nothing skipped: the stored offsets did not move.
    await sleep(1_000);
    for (const stream of ahead) {
      expect(await world.store.readOffset(resumeKey(stream))).toBe(storedBefore.get(stream));
    }

    // The remedy documented in ROLLUPS.md: empty the store; the topics' content is rebuilt.
    await emptyStore(world.target);
    await world.drained(120_000);
    const within = [...cleared, ...secondCleared].filter((entry) => entry.endsWith(' within'));
    expect(within.map((entry) => entry.split(' ')[0]).sort()).toEqual(ahead);
    expect(runner.ahead + second.ahead).toBe(0);
    await expectStoreMatchesReference(world.store, validEvents(after.lines, nowUs), nowUs);
  }, 300_000);
});
