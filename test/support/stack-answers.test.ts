/**
 * `stackAnswers` (test/support/discovery.ts), which decides whether `npm test` runs the services
 * and faults tiers side by side (test/support/run-tiers.ts): only when Kafka, Redis, the REST
 * endpoint and the Cluster all answer at the addresses given, so that neither vitest process
 * starts services of its own on the project's ports.
 *
 * @module
 */
import { expect, test } from 'vitest';
import { freePort } from '../../tools/services/free-port.ts';
import { stackAnswers } from './discovery.ts';
import { describeWithServices } from './services.ts';

describeWithServices(
  ['kafka', 'redis', 'upstash', 'redisCluster'],
  'whether the stack answers, for the tiers side by side',
  ({ kafka, redis, upstash, redisCluster }) => {
    const stack = {
      KAFKA_BROKERS: kafka.brokers.join(','),
      REDIS_URL: redis.url,
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      REDIS_CLUSTER_NODES: redisCluster.nodes.join(','),
    };

    test('all four answering: side by side', async () => {
      expect(await stackAnswers(stack)).toBe(true);
    });

    test.each([
      ['KAFKA_BROKERS', (port: number) => `127.0.0.1:${port}`],
      ['REDIS_URL', (port: number) => `redis://127.0.0.1:${port}`],
      ['UPSTASH_REDIS_REST_URL', (port: number) => `http://127.0.0.1:${port}`],
      ['REDIS_CLUSTER_NODES', (port: number) => `127.0.0.1:${port}`],
    ])('%s where nothing answers: one after the other', async (name, address) => {
      const nowhere = address(await freePort());
      expect(await stackAnswers({ ...stack, [name]: nowhere })).toBe(false);
    });

    test('the REST endpoint refusing its token: one after the other', async () => {
      expect(await stackAnswers({ ...stack, UPSTASH_REDIS_REST_TOKEN: 'not-the-token' }))
        .toBe(false);
    });
  },
);
