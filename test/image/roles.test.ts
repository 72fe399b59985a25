/**
 * The built image's scale-out roles against the real Kafka and Redis (`npm run services:up`),
 * on the host's network: one container with `--role consumers` folds what another with
 * `--role api` ingests; the API then answers every endpoint as the reference evaluator does.
 * Both report healthy through the image's own HEALTHCHECK (the consumers' on METRICS_PORT) and
 * stop cleanly on SIGTERM within the grace period.
 *
 * Isolation: topics under a unique prefix (deleted afterwards), a unique consumer group, and a
 * Redis database of its own (14), emptied with FLUSHDB first (rollup keys are global).
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { topicNames } from '../../src/kafka/topics.ts';
import { TEST_KEY } from '../api/helpers/app.ts';
import { type Call } from '../api/helpers/http.ts';
import { expectIngestedAnswers } from '../api/helpers/ingested-answers.ts';
import { generatedStream, queriesFor } from '../rollup/fold-and-read.ts';
import { drained } from '../support/drained.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { until } from '../support/poll.ts';
import { describeWithServices, redisDatabaseUrl } from '../support/services.ts';
import { type Container, GRACE_SECONDS, IMAGE, startContainer } from './engine.ts';

const DATABASE = 14;
const PARTITIONS = 3;

describeWithServices(
  ['kafka', 'redis'],
  `the image ${IMAGE}, --role api and --role consumers`,
  ({ kafka, redis }) => {
    const id = randomUUID().slice(0, 8);
    const prefix = `image-${id}.`;
    const topics = topicNames(prefix);
    const redisUrl = redisDatabaseUrl(redis.url, DATABASE);
    const nowUs = Date.now() * 1000;
    const stream = generatedStream(nowUs, 3_000);
    let api: Container | null = null;
    let consumers: Container | null = null;
    let url = '';
    const call: Call = (path, init = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { 'X-API-KEY': TEST_KEY, ...init.headers } });

    beforeAll(async () => {
      const client = await createClient({ url: redisUrl }).connect();
      await client.flushDb();
      await client.close();
      const shared = {
        KAFKA_BROKERS: kafka.brokers.join(','),
        KAFKA_TOPIC_PREFIX: prefix,
        KAFKA_GROUP_ID: `${prefix}group`,
        TOPIC_PARTITIONS: String(PARTITIONS),
        FLUSH_INTERVAL_MS: '100',
        REDIS_URL: redisUrl,
        LOG_LEVEL: 'info',
      };
      const apiPort = await freePort();
      const metricsPort = await freePort();
      url = `http://127.0.0.1:${apiPort}`;
      consumers = await startContainer(`image-consumers-${id}`, {
        ...shared,
        METRICS_PORT: String(metricsPort),
        // Nothing listens there: the health check (which tries PORT, then METRICS_PORT) must
        // find this container's own /healthz, not another service's on the host's network.
        PORT: String(await freePort()),
      }, ['--role', 'consumers']);
      api = await startContainer(`image-api-${id}`, {
        ...shared,
        API_KEYS: TEST_KEY,
        PORT: String(apiPort),
      }, ['--role', 'api']);
      await until(
        'the API container ready',
        120_000,
        async () => (await call('/readyz')).status === 200 ? true : null,
      );
      await until('the consumers container ready', 120_000, async () => {
        const response = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
        return response.status === 200 ? true : null;
      });
    }, 240_000);

    afterAll(async () => {
      await api?.remove();
      await consumers?.remove();
      const admin = new Kafka({ brokers: [...kafka.brokers], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      await admin.deleteTopics({ topics: Object.values(topics) });
      await admin.disconnect();
    }, 60_000);

    test("both report healthy through the image's own HEALTHCHECK", async () => {
      expect(await api?.healthy()).toBe(true);
      expect(await consumers?.healthy()).toBe(true);
    });

    test(
      'ingested through the API container, folded by the consumers container: every endpoint answers what the reference says',
      async () => {
        await expectIngestedAnswers(
          call,
          stream,
          queriesFor(stream.events, nowUs),
          () => drained(kafka.brokers, topics, redisUrl, 120_000),
        );
      },
      300_000,
    );

    test(`SIGTERM stops each cleanly within the grace period (${GRACE_SECONDS} s)`, async () => {
      for (const container of [api, consumers]) {
        const stopped = await container?.stop();
        console.log(`image: ${container?.name} stopped in ${stopped?.seconds.toFixed(1)} s`);
        expect(stopped?.exitCode, await container?.logs()).toBe(0);
        expect(await container?.logs()).toContain('"msg":"stopping"');
      }
    }, 120_000);
  },
);
