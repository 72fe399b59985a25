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
import { describeWithServices } from '../support/services.ts';
import { TEST_KEY } from './helpers/app.ts';
import { type Call } from './helpers/http.ts';
import { expectIngestedAnswers } from './helpers/ingested-answers.ts';

const DATABASE = 13;
const PARTITIONS = 3;

function withDatabase(url: string, database: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

describeWithServices(['kafka', 'redis'], 'HTTP API on Kafka and Redis', ({ kafka, redis }) => {
  const prefix = `api-e2e-${randomUUID().slice(0, 8)}.`;
  const topics = topicNames(prefix);
  const redisUrl = withDatabase(redis.url, DATABASE);
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

  test('/readyz reaches Redis', async () => {
    expect((await call('/readyz')).status).toBe(200);
  });
});
