/**
 * End to end on real services, as deployed: generated events -> `POST /api/ingest` (publishes
 * to Kafka, acks from all in-sync replicas) -> consumers (in the same process, `npm start`
 * with KAFKA_BROKERS and REDIS_URL) -> Redis -> HTTP, every endpoint, interval and tier by
 * name, by name under /query/ and by id, compared with the reference evaluator.
 *
 * Isolation: topics under a unique prefix (deleted afterwards), a unique consumer group, and a
 * Redis database of its own (13), emptied with FLUSHDB first (rollup keys are global).
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { generatedStream, queriesFor } from '../rollup/fold-and-read.ts';
import { drained } from '../support/drained.ts';
import { startReadyService } from '../support/service.ts';
import { describeWithServices, redisDatabaseUrl } from '../support/services.ts';
import { TEST_KEY } from './helpers/app.ts';
import { type Call } from './helpers/http.ts';
import { expectIngestedAnswers } from './helpers/ingested-answers.ts';
import { recentFixture, VECTOR_SOURCES } from '../fixtures/supabase/vector-events.ts';
import type { LogflareSource } from '../../src/events/logflare-sources.ts';
import { parseSourceLog } from '../../src/events/source-log.ts';
import { readSourceLogs } from '../../src/endpoints/read/source-logs.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { RedisStore } from '../../src/store/redis.ts';

const DATABASE = 13;

/** Kong's queries a self-hosted Studio asks. */
const KONG_QUERIES = [
  ['logs.all', 'project=default&project_tier=FREE'],
  ['usage.api-counts', 'project=default&interval=1hr'],
] as const;
const PARTITIONS = 3;

describeWithServices(['kafka', 'redis'], 'HTTP API on Kafka and Redis', ({ kafka, redis }) => {
  const prefix = `api-e2e-${randomUUID().slice(0, 8)}.`;
  const topics = topicNames(prefix);
  const redisUrl = redisDatabaseUrl(redis.url, DATABASE);
  const nowUs = Date.now() * 1000;
  const stream = generatedStream(nowUs, 4_000);
  let service: Service | null = null;
  let call: Call = () => Promise.reject(new Error('the service did not start'));

  beforeAll(async () => {
    const client = await createClient({ url: redisUrl }).connect();
    await client.flushDb();
    await client.close();
    const config = loadConfig({
      KAFKA_BROKERS: kafka.brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_GROUP_ID: `${prefix}group`,
      TOPIC_PARTITIONS: String(PARTITIONS),
      FLUSH_INTERVAL_MS: '100',
      REDIS_URL: redisUrl,
      API_KEYS: TEST_KEY,
      PORT: '0',
    });
    ({ service, call } = await startReadyService(config, 'api-e2e', TEST_KEY));
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    const admin = new Kafka({ brokers: [...kafka.brokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: Object.values(topics) });
    await admin.disconnect();
  }, 60_000);

  test('ingested through Kafka, every endpoint answers what the reference says', async () => {
    await expectIngestedAnswers(
      call,
      stream,
      queriesFor(stream.events, nowUs),
      () => drained(kafka.brokers, topics, redisUrl, 90_000),
    );
  }, 180_000);

  test(
    "Vector's events through Kafka: every source kept, Kong's answered as the reference says",
    async () => {
      const sent = new Map<LogflareSource, number>();
      for (const source of VECTOR_SOURCES) {
        const events = recentFixture(source, Date.now());
        sent.set(source, events.length);
        const response = await call(`/api/logs?source_name=${source}`, {
          method: 'POST',
          body: JSON.stringify(events),
        });
        expect(response.status, await response.clone().text()).toBe(200);
      }
      await drained(kafka.brokers, topics, redisUrl, 90_000);
      const store = await RedisStore.connect(redisUrl);
      try {
        const nowUs = Date.now() * 1000;
        for (const [source, count] of sent) {
          const kept = await readSourceLogs(store, {
            project: 'default',
            source,
            afterUs: 0,
            untilUs: nowUs,
            limit: 1000,
          });
          expect(kept, source).toHaveLength(count);
          if (source !== 'cloudflare.logs.prod') continue;
          const events = kept.map((entry) => {
            const result = parseSourceLog(entry.text, source, { nowUs });
            if (!result.ok) throw new Error(result.rejection.reason);
            return result.event;
          });
          for (const [endpoint, query] of KONG_QUERIES) {
            const expected = evaluateEndpoint(endpoint, events, new URLSearchParams(query), nowUs);
            expect(expected.ok && expected.rows.length, query).toBeGreaterThan(0);
            const want = expected.ok ? expected.rows : null;
            // The API learns a new request host from the registry within HOST_REFRESH_MS (1 s).
            let rows: unknown = null;
            for (let attempt = 0; attempt < 50; attempt++) {
              const response = await call(`/api/endpoints/${endpoint}?${query}`);
              rows = (await response.json() as { result: unknown }).result;
              if (JSON.stringify(rows) === JSON.stringify(want)) break;
              await new Promise((resolve) => setTimeout(resolve, 200));
            }
            expect(rows, query).toEqual(want);
          }
        }
      } finally {
        await store.close();
      }
    },
    180_000,
  );

  test('/readyz reaches Redis', async () => {
    expect((await call('/readyz')).status).toBe(200);
  });
});
