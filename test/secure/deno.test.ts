/**
 * The service on Deno (`deno task start`) reaches the secure services as it does on Node: the
 * broker over SASL_SSL with SCRAM-SHA-512 (ingest's sink and the consumers) and a TLS Redis with
 * an ACL user, from the same settings; `/readyz` says every part is ready.
 */
import { randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { kafkaClient } from '../../src/kafka/client.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { createLogger } from '../../src/logger.ts';
import { embeddedEnv, startChild } from '../api/helpers/child.ts';
import { describeWithServices } from '../support/services.ts';

describeWithServices(
  ['secureKafka', 'secureRedis'],
  'deno task start on the secure services',
  ({ secureKafka, secureRedis }) => {
    test('the store, ingest and the consumers get ready', async () => {
      const prefix = `secure-deno-${randomUUID().slice(0, 8)}.`;
      const service = await startChild(
        'node_modules/.bin/deno',
        ['task', 'start'],
        embeddedEnv({
          ...secureKafka.settings,
          ...secureRedis.settings,
          REDIS_URL: `${secureRedis.url}/14`,
          KAFKA_TOPIC_PREFIX: prefix,
          KAFKA_GROUP_ID: `${prefix}group`,
          TOPIC_PARTITIONS: '2',
        }),
      );
      try {
        // Ready once the store, the topics and the group are: polled, up to a minute.
        let answer = { status: 0, body: '' };
        for (let attempt = 0; attempt < 300 && answer.status !== 200; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
          const response = await fetch(`${service.url}/readyz`);
          answer = { status: response.status, body: await response.text() };
        }
        expect(answer).toEqual({ status: 200, body: '{"status":"ready"}' });
        expect(service.output()).not.toMatch(/\n\s+at /);
      } finally {
        await service.stop();
        const config = loadConfig(secureKafka.settings);
        const admin = kafkaClient(config, createLogger('silent', 'test'), secureKafka.brokers)
          .admin();
        await admin.connect();
        await admin.deleteTopics({ topics: Object.values(topicNames(prefix)) });
        await admin.disconnect();
      }
    }, 120_000);
  },
);
