/**
 * A consumer group that churns: four consumer processes (`service/main.ts --role consumers`) on
 * two topics of 12 partitions; 14 times (`CHURN_STOPS`), every 3 to 8 s (`CHURN_GAP_SECONDS`,
 * `10-30` for the long form), one of them, drawn at random (seeded), is stopped with SIGKILL or
 * SIGTERM (drawn too) and started again, while a producer keeps publishing. Once the stream is drained, every answer must equal the
 * reference evaluator.
 *
 * The test reports what the churn cost: the rebalances (each member's `consumer_group_joins_total`
 * beyond its first join), the messages each SIGKILL left folded and acknowledged to Kafka but not
 * stored on the partitions the killed member held (the next owner folds them again), and the
 * messages the members found already folded and skipped. That the faults landed is asserted:
 * kills of both kinds while events were still arriving, and more joins than starts.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { resumeKey } from '../../src/rollup/keys.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { startOwnRedis, stopOwnRedis } from '../../tools/services/own-redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { describeWithServices } from '../support/services.ts';
import { committedOffsets, createWorld, exited, type World } from './harness.ts';
import { memberMetricsOnceUp } from './member-metrics.ts';

/** Stops of a member; CHURN_STOPS makes a longer (or shorter) run. */
const STOPS = Number(process.env.CHURN_STOPS ?? 14);
/** The least and the most seconds from one planned stop to the next (`CHURN_GAP_SECONDS=3-8`). */
const [GAP_MIN_S, GAP_MAX_S] = (process.env.CHURN_GAP_SECONDS ?? '3-8').split('-').map(Number) as [
  number,
  number,
];
/** Seconds the producer publishes: about four fifths of the stops' plan fall while it does. */
const PUBLISH_SECONDS = Math.ceil(0.8 * STOPS * ((GAP_MIN_S + GAP_MAX_S) / 2));
const MEMBERS = 4;
/** Events a second the producer publishes while the group churns. */
const RATE = 400;

/** One member: its process and the port of its metrics. */
interface Member {
  readonly child: ChildProcess;
  readonly port: number;
}

/** What one stop of a member did. */
interface Stop {
  readonly signal: 'SIGKILL' | 'SIGTERM';
  readonly atSecond: number;
  /** Whether the producer was still publishing when the member was stopped. */
  readonly midStream: boolean;
  /**
   * After a SIGKILL, messages the member had acknowledged to Kafka and not stored, on the
   * partitions it held (null after a SIGTERM, or when its metrics did not answer).
   */
  readonly replayed: number | null;
}

describeWithServices(['kafka', 'redis-server'], 'a consumer group that churns', ({ kafka }) => {
  let redis: Service | undefined;
  let world: World;
  const members: Member[] = [];
  // Spread over the churn: 8 days of history and the last 10 minutes, late and invalid events.
  const stream = generatedStream(
    Math.floor(Date.now() / 1000) * 1_000_000,
    Math.ceil((RATE * PUBLISH_SECONDS) / 2),
  );

  beforeAll(async () => {
    // A Redis of its own: on a shared machine, another suite's events on the shared Redis (its
    // generated projects are this one's) would be read back as this test's.
    redis = await startOwnRedis(`redis-churn-${process.pid}`);
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.address });
  }, 120_000);

  afterAll(async () => {
    for (const { child } of members) child.kill('SIGKILL');
    await Promise.all(members.map(({ child }) => exited(child)));
    await world?.close();
    if (redis !== undefined) await stopOwnRedis(redis);
  });

  test('every answer equals the reference after the kills and restarts', async () => {
    let seed = 35;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const start = async (): Promise<Member> => {
      const port = await freePort();
      return { port, child: world.consumerProcess({ METRICS_PORT: String(port) }) };
    };
    for (let i = 0; i < MEMBERS; i++) members.push(await start());

    // The producer: one second's worth of the stream a second, until all of it is out.
    const startedMs = Date.now();
    let publishedLines = 0;
    const publishing = (async () => {
      for (let second = 0; publishedLines < stream.lines.length; second++) {
        const chunk = stream.lines.slice(publishedLines, publishedLines + RATE);
        await world.publish(chunk);
        publishedLines += chunk.length;
        await new Promise((resolve) =>
          setTimeout(resolve, startedMs + (second + 1) * 1000 - Date.now())
        );
      }
    })();

    // Joins and skips counted by members that are gone (read just before each stop).
    let joinsOfStopped = 0;
    let skippedOfStopped = 0;
    let scrapesMissed = 0;
    const stops: Stop[] = [];
    // Stops planned GAP_MIN_S to GAP_MAX_S apart from one plan to the next (what a stop itself
    // takes on a slow machine does not stretch the plan).
    let plannedMs = startedMs;
    while (stops.length < STOPS) {
      plannedMs = Math.max(
        plannedMs + 1000 * (GAP_MIN_S + (GAP_MAX_S - GAP_MIN_S) * next()),
        Date.now() + 1_000,
      );
      await new Promise((resolve) => setTimeout(resolve, plannedMs - Date.now()));
      const index = Math.floor(next() * MEMBERS);
      const signal = next() < 0.5 ? 'SIGKILL' : 'SIGTERM';
      const member = members[index];
      if (member === undefined) throw new Error(`no member ${index}`);
      const before = await memberMetricsOnceUp(member.port);
      if (before === null) scrapesMissed += 1;
      joinsOfStopped += before?.joins ?? 0;
      skippedOfStopped += before?.skipped ?? 0;
      const midStream = publishedLines < stream.lines.length;
      member.child.kill(signal);
      await exited(member.child);
      // What the next owners of its partitions read again: acknowledged, never stored.
      // Only after a SIGKILL: a member stopped with SIGTERM leaves the group at once, and what
      // its partitions' next owners acknowledge but have not stored yet would be counted.
      let replayed: number | null = null;
      if (before !== null && signal === 'SIGKILL') {
        const committed = await committedOffsets(world.admin, world.groupId, [
          world.topics.edge,
          world.topics['function-edge'],
        ]);
        replayed = 0;
        for (const { topic, partitions } of committed) {
          for (const { partition, offset } of partitions) {
            const name = `${topic}/${partition}`;
            if (!before.streams.includes(name)) continue;
            const stored = (await world.store.readOffset(resumeKey(name))) ?? 0;
            replayed += Math.max(0, Number(offset) - stored);
          }
        }
      }
      stops.push({
        signal,
        atSecond: Math.round((Date.now() - startedMs) / 1000),
        midStream,
        replayed,
      });
      members[index] = await start();
    }
    await publishing;
    await world.drained(300_000);

    // Every member is up (a process started last may still be loading) before it is read and
    // stopped; the figures are printed before anything is asserted.
    const last = await Promise.all(members.map(({ port }) => memberMetricsOnceUp(port)));
    const joins = joinsOfStopped + last.reduce((sum, metrics) => sum + (metrics?.joins ?? 0), 0);
    const skipped = skippedOfStopped +
      last.reduce((sum, metrics) => sum + (metrics?.skipped ?? 0), 0);
    const starts = MEMBERS + stops.length;
    const replayed = stops.reduce((sum, stop) => sum + (stop.replayed ?? 0), 0);
    console.log(
      `churn test: ${
        Math.round((Date.now() - startedMs) / 1000)
      } s, ${stream.lines.length} messages, ${stops.length} stops ` +
        `(${stops.filter((stop) => stop.signal === 'SIGKILL').length} SIGKILL), ${starts} ` +
        `process starts; ${joins} group joins, so ${joins - starts} rebalances met by members ` +
        `already in the group; ${replayed} messages left to fold again by SIGKILLs, ${skipped} ` +
        `found already folded and skipped; ${scrapesMissed} member(s) not scraped before their stop\n${
          stops.map((stop) => `  ${stop.atSecond} s: ${stop.signal}, replayed ${stop.replayed}`)
            .join('\n')
        }`,
    );
    await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
    for (const { child } of members) child.kill('SIGTERM');
    await Promise.all(members.map(({ child }) => exited(child)));
    for (const { child } of members) expect(child.exitCode).toBe(0);
    // The churn happened while events arrived: stops of both kinds before the last event was
    // out, and rebalances beyond the members' first joins.
    expect(stops.filter((stop) => stop.midStream).length).toBeGreaterThanOrEqual(
      Math.ceil(STOPS / 2),
    );
    expect(new Set(stops.map((stop) => stop.signal)).size).toBe(2);
    expect(joins).toBeGreaterThan(starts);
  }, (STOPS * GAP_MAX_S + 12 * 60) * 1000);
});
