/**
 * Issue 35, item 5: a consumer group that fell behind the topic's retention. Messages after the
 * stored resume offsets are deleted before they were folded (`deleteRecords` moves each
 * partition's log start past them, as retention does, but deterministically). Kafka answers a
 * fetch below the log start with "offset out of range" and kafkajs goes on from the earliest
 * offset, silently. The consumers must say how many offsets each partition lost (a log line, the
 * `consumer_retention_lost_offsets_total` counter, `/healthz`'s answer) and keep folding what the
 * topic still holds, exactly.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { redisServerService } from '../../tools/services/redis.ts';
import type { Service as OwnService } from '../../tools/services/service.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import {
  expectStoreMatchesReference,
  generatedStream,
  validEvents,
} from '../rollup/fold-and-read.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { startTestService } from '../support/service.ts';
import { messagesLogger } from '../support/logged-messages.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, PARTITIONS, type World } from './harness.ts';

describeWithServices(
  ['kafka', 'redis-server'],
  'a consumer group behind the retention',
  (services) => {
    // A Redis of its own: the world empties its Redis, and the host registry is one key for all.
    let redis: OwnService;
    let world: World;
    let runner: ConsumerRunner | null = null;
    let service: Service | null = null;
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 1_500);
    const half = Math.floor(stream.lines.length / 2);

    beforeAll(async () => {
      redis = redisServerService({
        name: 'redis-retention',
        port: await freePort(),
        extraArgs: [],
      });
      rmSync(serviceDir(redis.name), { recursive: true, force: true });
      await up(redis, () => undefined);
      world = await createWorld(services.kafka.brokers, { kind: 'redis', url: redis.address });
    }, 120_000);

    afterAll(async () => {
      await runner?.stop();
      await service?.stop();
      await world?.close();
      if (redis !== undefined) await down(redis);
    }, 60_000);

    /** The resume offset stored for each partition of both source topics. */
    async function storedOffsets(): Promise<Map<string, number>> {
      const stored = new Map<string, number>();
      for (const topic of [world.topics.edge, world.topics['function-edge']]) {
        for (let partition = 0; partition < PARTITIONS; partition++) {
          const stream = `${topic}/${partition}`;
          stored.set(stream, (await world.store.readOffset(resumeKey(stream))) ?? 0);
        }
      }
      return stored;
    }

    test('reports the offsets each partition lost, and folds the rest exactly', async () => {
      runner = world.runner({ offsetCheckMs: 250 });
      await runner.start();
      await world.publish(stream.lines.slice(0, half));
      await world.drained(120_000);
      await runner.stop();
      runner = null;
      const folded = await storedOffsets();

      // While no consumer runs, the second half arrives and retention takes half of it in every
      // partition before anything folded it.
      await world.publish(stream.lines.slice(half));
      const lost = new Map<string, number>();
      for (const topic of [world.topics.edge, world.topics['function-edge']]) {
        const partitions = [];
        for (const { partition, high } of await world.admin.fetchTopicOffsets(topic)) {
          const from = folded.get(`${topic}/${partition}`) ?? 0;
          const deleted = Math.floor((Number(high) - from) / 2);
          if (deleted === 0) continue;
          lost.set(`${topic}/${partition}`, deleted);
          partitions.push({ partition, offset: String(from + deleted) });
        }
        await world.admin.deleteTopicRecords({ topic, partitions });
      }
      expect(lost.size).toBeGreaterThan(PARTITIONS);
      // What the topics still hold of the second half: the reference folds that and the first half.
      const sourceOf = new Map([
        [world.topics.edge, 'edge' as const],
        [world.topics['function-edge'], 'function-edge' as const],
      ]);
      const kept: { source: 'edge' | 'function-edge'; line: string }[] = [];
      for (const [origin, line] of await world.sourceMessages()) {
        const [topic = '', partition = '', offset = ''] = origin.split('/');
        const source = sourceOf.get(topic);
        if (source === undefined) throw new Error(`a message of an unknown topic: ${origin}`);
        if (Number(offset) >= (folded.get(`${topic}/${partition}`) ?? 0)) {
          kept.push({ source, line });
        }
      }
      const deletedTotal = [...lost.values()].reduce((sum, count) => sum + count, 0);
      expect(kept.length).toBe(stream.lines.length - half - deletedTotal);

      // The consumers role, as deployed: its log, metrics and /healthz say what was lost.
      const logged: string[] = [];
      service = await startTestService({
        config: loadConfig({
          KAFKA_BROKERS: services.kafka.brokers.join(','),
          KAFKA_TOPIC_PREFIX: world.prefix,
          KAFKA_GROUP_ID: world.groupId,
          TOPIC_PARTITIONS: String(PARTITIONS),
          REDIS_URL: redis.address,
          METRICS_PORT: '0',
        }),
        logger: messagesLogger('error', 'retention-overrun', logged),
        role: 'consumers',
        onFatal: (message) => {
          throw new Error(message);
        },
      });
      const base = service.url ?? '';
      await world.drained(120_000);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      const reported = new Map<string, number>();
      for (const line of metrics.split('\n')) {
        const found =
          /^consumer_retention_lost_offsets_total\{topic="([^"]+)",partition="(\d+)"\} (\d+)$/
            .exec(line);
        if (found !== null) reported.set(`${found[1]}/${found[2]}`, Number(found[3]));
      }
      expect(new Map([...reported].sort()), 'offsets lost to retention, by partition')
        .toEqual(new Map([...lost].sort()));
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      const said = await health.text();
      for (const [stream, offsets] of lost) {
        expect(said).toContain(`${stream} lost ${offsets} offset(s) to retention`);
        const from = folded.get(stream) ?? 0;
        expect(logged, stream).toContain(
          `${stream} lost ${offsets} offset(s) (${from} to ${from + offsets - 1}): the topic's ` +
            'retention deleted them before they were folded, and their events are missing from ' +
            `the rollups. Folding goes on from ${from + offsets}; see "A consumer group behind ` +
            `the topic's retention" in docs/ROLLUPS.md for what to do`,
        );
      }

      const events = [
        ...validEvents(stream.lines.slice(0, half), nowUs),
        ...validEvents(kept, nowUs),
      ];
      await expectStoreMatchesReference(world.store, events, nowUs, 60);
    }, 240_000);
  },
);
