/**
 * The store contract on a Redis Cluster of three masters (`npm run services:up` starts one):
 * every commit in one project's hash slot, reads spanning slots on several masters.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisStore } from '../../src/store/redis.ts';
import { describeWithServices } from '../support/services.ts';
import { clusterClient } from '../support/store-target.ts';
import { storeContract } from './contract.ts';
import { hashReads } from './hash-reads.ts';

describeWithServices(
  ['redisCluster'],
  'RedisStore on a Redis Cluster passes the store contract',
  ({ redisCluster }) => {
    let store: RedisStore | null = null;
    const prefix = `contract:${randomUUID()}`;
    let run = 0;
    beforeAll(async () => {
      store = await RedisStore.connectCluster(redisCluster.nodes);
    });
    afterAll(() => store?.close());

    test('the cluster has three masters, and key groups of the contract spread over them', async () => {
      const cluster = await clusterClient(redisCluster.nodes).connect();
      try {
        expect(cluster.masters).toHaveLength(3);
        const owners = new Set<string>();
        for (const group of ['g1', 'g2', 'g3', 'g4', 'g5', 'p', 'stream', 'registry']) {
          const slot = Number(
            await cluster.sendCommand(undefined, true, [
              'CLUSTER',
              'KEYSLOT',
              `${prefix}:{1:${group}}:x`,
            ]),
          );
          const master = cluster.masters.find((node) =>
            cluster.slots[slot]?.master.address === node.address
          );
          owners.add(master?.address ?? '?');
        }
        expect(owners.size).toBeGreaterThan(1);
      } finally {
        await cluster.close();
      }
    });

    storeContract({
      store: () => {
        if (store === null) throw new Error('RedisStore did not connect to the cluster');
        run += 1;
        return store;
      },
      key: (name, group = 'p') => `${prefix}:{${run}:${group}}:${name}`,
      nowMs: Date.now,
      fencesResume: false,
    });

    /** A client of the cluster for `use`, closed after it. */
    const withCluster = async <T>(
      use: (cluster: ReturnType<typeof clusterClient>) => Promise<T>,
    ): Promise<T> => {
      const cluster = await clusterClient(redisCluster.nodes).connect();
      try {
        return await use(cluster);
      } finally {
        await cluster.close();
      }
    };
    hashReads({
      store: () => {
        if (store === null) throw new Error('RedisStore did not connect to the cluster');
        return store;
      },
      key: (name) => `${prefix}:{hash-reads}:${name}`,
      write: (legacy, hash) =>
        withCluster(async (cluster) => {
          await cluster.set(legacy.key, legacy.value);
          await cluster.hSet(hash.key, hash.fields);
        }),
      commandStats: () =>
        withCluster((cluster) =>
          Promise.all(
            cluster.masters.map(async (master) =>
              String(await (await cluster.nodeClient(master)).sendCommand(['INFO', 'commandstats']))
            ),
          )
        ),
    });
  },
);
