/**
 * Issue 35: a partition with no stored resume offset whose log start is above 0 (retention
 * deleted its first messages, here `deleteRecords` as retention would). Folding starts at the
 * log start; what that means depends on whether the store ever held the partition:
 *
 * - a new consumer group on a topic whose old messages expired (a new deployment): nothing this
 *   store had folded is gone, so nothing is counted, but the log says where folding started and
 *   what the offsets below it were;
 * - a store that lost its keys while the consumers ran (FLUSHALL on a Redis of the test's own),
 *   with the topic's retention past what was folded: what the store had folded below the log
 *   start is gone for good, and it is counted in `consumer_retention_lost_offsets_total`,
 *   logged and told by `/healthz`.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { startOwnRedis, stopOwnRedis } from '../../tools/services/own-redis.ts';
import type { Service as OwnService } from '../../tools/services/service.ts';
import {
  expectStoreMatchesReference,
  generatedStream,
  validEvents,
} from '../rollup/fold-and-read.ts';
import { until } from '../support/poll.ts';
import { startTestService } from '../support/service.ts';
import { messagesLogger } from '../support/logged-messages.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, PARTITIONS, type World } from './harness.ts';

/** `consumer_retention_lost_offsets_total` by `topic/partition` in a Prometheus text exposition. */
function retentionLost(text: string): Map<string, number> {
  const counted = new Map<string, number>();
  for (const line of text.split('\n')) {
    const found =
      /^consumer_retention_lost_offsets_total\{topic="([^"]+)",partition="(\d+)"\} (\d+)$/
        .exec(line);
    if (found !== null && Number(found[3]) > 0) {
      counted.set(`${found[1]}/${found[2]}`, Number(found[3]));
    }
  }
  return new Map([...counted].sort());
}

describeWithServices(
  ['kafka', 'redis-server'],
  'a partition that starts at its log start',
  (services) => {
    // A Redis of its own: it is flushed.
    let redis: OwnService;
    let world: World;
    let service: Service | null = null;
    const logged: string[] = [];
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const first = generatedStream(nowUs, 1_000);
    const later = generatedStream(nowUs + 1_000_000, 300);

    beforeAll(async () => {
      redis = await startOwnRedis('redis-log-start');
      world = await createWorld(services.kafka.brokers, { kind: 'redis', url: redis.address });
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      await world?.close();
      if (redis !== undefined) await stopOwnRedis(redis);
    }, 60_000);

    /** Deletes each source partition's records below `to(high)`; answers the new log starts. */
    async function deleteBelow(to: (high: number) => number): Promise<Map<string, number>> {
      const starts = new Map<string, number>();
      for (const topic of [world.topics.edge, world.topics['function-edge']]) {
        const partitions = [];
        for (const { partition, high } of await world.admin.fetchTopicOffsets(topic)) {
          const offset = to(Number(high));
          starts.set(`${topic}/${partition}`, offset);
          if (offset > 0) partitions.push({ partition, offset: String(offset) });
        }
        await world.admin.deleteTopicRecords({ topic, partitions });
      }
      return starts;
    }

    /** The lines still in the topics, as the reference folds them. */
    async function keptLines(): Promise<{ source: 'edge' | 'function-edge'; line: string }[]> {
      const sourceOf = new Map([
        [world.topics.edge, 'edge' as const],
        [world.topics['function-edge'], 'function-edge' as const],
      ]);
      return [...await world.sourceMessages()].map(([origin, line]) => {
        const source = sourceOf.get(origin.split('/')[0] ?? '');
        if (source === undefined) throw new Error(`a message of an unknown topic: ${origin}`);
        return { source, line };
      });
    }

    test(
      'a new consumer group on a topic whose old messages expired: said, not counted',
      async () => {
        await world.publish(first.lines);
        const starts = await deleteBelow((high) => Math.floor(high / 2));
        const kept = await keptLines();
        service = await startTestService({
          config: loadConfig({
            KAFKA_BROKERS: services.kafka.brokers.join(','),
            KAFKA_TOPIC_PREFIX: world.prefix,
            KAFKA_GROUP_ID: world.groupId,
            TOPIC_PARTITIONS: String(PARTITIONS),
            REDIS_URL: redis.address,
            METRICS_PORT: String(await freePort()),
          }),
          logger: messagesLogger('warn', 'log-start', logged),
          role: 'consumers',
          onFatal: (message) => {
            throw new Error(message);
          },
        });
        await world.drained(120_000);
        const base = service.url ?? '';
        for (const [stream, logStart] of starts) {
          if (logStart === 0) continue;
          expect(logged, stream).toContain(
            `${stream} has no stored resume offset: folding starts at its log start, ${logStart} ` +
              `(offsets 0 to ${logStart - 1} are no longer in the topic). Normal for a new ` +
              'deployment or consumer group on a topic whose older messages expired; if this store ' +
              'held the partition before (it lost its keys), the events of those offsets are ' +
              `missing from the rollups: see "A consumer group behind the topic's retention" in ` +
              'docs/ROLLUPS.md',
          );
        }
        expect(retentionLost(await (await fetch(`${base}/metrics`)).text())).toEqual(new Map());
        expect(await (await fetch(`${base}/healthz`)).text()).toBe('ok\n');
        await expectStoreMatchesReference(world.store, validEvents(kept, nowUs), nowUs, 30);
      },
      240_000,
    );

    test('a store that lost its keys below the log start: counted, logged, told', async () => {
      const began = new Map<string, number>();
      for (const topic of [world.topics.edge, world.topics['function-edge']]) {
        for (const { partition, low } of await world.admin.fetchTopicOffsets(topic)) {
          began.set(`${topic}/${partition}`, Number(low));
        }
      }
      // Retention takes everything folded so far, then the store loses every key.
      const starts = await deleteBelow((high) => high);
      const lost = new Map<string, number>();
      for (const [stream, logStart] of starts) {
        const from = began.get(stream) ?? 0;
        if (logStart > from) lost.set(stream, logStart - from);
      }
      expect(lost.size).toBeGreaterThan(PARTITIONS);
      const admin = await createClient({ url: redis.address }).connect();
      await admin.flushAll();
      await admin.close();

      const base = service?.url ?? '';
      const counted = await until('the losses to be counted', 60_000, async () => {
        const found = retentionLost(await (await fetch(`${base}/metrics`)).text());
        return found.size >= lost.size ? found : null;
      });
      expect(counted, 'offsets the store lost below the log start, by partition')
        .toEqual(new Map([...lost].sort()));
      const health = await (await fetch(`${base}/healthz`)).text();
      for (const [stream, offsets] of lost) {
        expect(health).toContain(
          `${stream} lost ${offsets} offset(s) the store had folded and lost, which retention deleted`,
        );
        const from = began.get(stream) ?? 0;
        expect(
          logged.some((line) => line.startsWith(`${stream} lost ${offsets} offset(s) (${from} to`)),
        )
          .toBe(true);
      }

      // Folding goes on from the log start, exactly.
      await world.publish(later.lines);
      await world.drained(120_000);
      await expectStoreMatchesReference(world.store, later.events, nowUs + 1_000_000, 10);
    }, 240_000);
  },
);
