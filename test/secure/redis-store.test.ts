/**
 * The store on a Redis and a Redis Cluster that take only TLS and only an ACL user (the default
 * user off), reached with the settings a deployment gives (REDIS_URL rediss:// or REDIS_TLS,
 * REDIS_TLS_CA_FILE, REDIS_USERNAME, REDIS_PASSWORD_FILE): the store contract, folded events
 * read back as the reference evaluator answers, and every cluster node found from one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { redisAccess } from '../../src/store/open.ts';
import {
  expectStoreMatchesReference,
  foldThroughWriters,
  generatedStream,
} from '../rollup/fold-and-read.ts';
import { storeContract } from '../store/contract.ts';
import { secureTarget } from '../support/secure-target.ts';
import { describeWithServices, type SecureAddress } from '../support/services.ts';
import { clusterClient, emptyStore, openStore, type StoreTarget } from '../support/store-target.ts';

function secureSuite(name: string, address: () => SecureAddress, clustered: boolean): void {
  describe(name, () => {
    let target: StoreTarget;
    let store: RedisStore | null = null;
    const prefix = `secure:${randomUUID()}`;
    let run = 0;
    beforeAll(async () => {
      target = secureTarget(address());
      await emptyStore(target);
      store = await openStore(target);
    });
    afterAll(() => store?.close());

    describe('the store contract', () => {
      storeContract({
        store: () => {
          if (store === null) throw new Error('the store did not connect');
          run += 1;
          return store;
        },
        key: (key, group = 'p') => `${prefix}:{${run}:${group}}:${key}`,
        nowMs: Date.now,
        fencesResume: !clustered,
      });
    });

    test('folded events read back as the reference evaluator answers', async () => {
      if (store === null) throw new Error('the store did not connect');
      await emptyStore(target);
      const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
      const stream = generatedStream(nowUs, 1_500);
      const folded: RollupStore = store;
      await foldThroughWriters(folded, stream.events, nowUs, 4, 'by-project');
      await expectStoreMatchesReference(folded, stream.events, nowUs, 60);
    }, 120_000);
  });
}

describeWithServices(
  ['secureRedis'],
  'store on a TLS Redis with an ACL user',
  ({ secureRedis }) => {
    secureSuite(
      'rediss:// with REDIS_TLS_CA_FILE, REDIS_USERNAME, REDIS_PASSWORD_FILE',
      () => secureRedis,
      false,
    );

    test('a client certificate (mutual TLS) is taken, REDIS_TLS_CERT_FILE and _KEY_FILE', async () => {
      const store = await openStore(secureTarget(secureRedis, {
        REDIS_TLS_CERT_FILE: secureRedis.clientCertFile,
        REDIS_TLS_KEY_FILE: secureRedis.clientKeyFile,
      }));
      await store.ping();
      await store.close();
    });
  },
);

describeWithServices(
  ['secureRedisCluster'],
  'store on a TLS Redis Cluster with an ACL user',
  ({ secureRedisCluster }) => {
    secureSuite(
      'REDIS_TLS, REDIS_TLS_CA_FILE, REDIS_USERNAME, REDIS_PASSWORD_FILE',
      () => secureRedisCluster,
      true,
    );

    test('given one node, the store logs in over TLS to every master it discovers', async () => {
      const [first] = secureRedisCluster.nodes;
      if (first === undefined) throw new Error('no cluster node');
      const config = loadConfig({ ...secureRedisCluster.settings, REDIS_CLUSTER_NODES: first });
      if (config.store.kind !== 'redis-cluster') throw new Error(config.store.kind);
      const access = redisAccess(config.store.security);
      const store = await RedisStore.connectCluster(config.store.nodes, { access });
      const cluster = await clusterClient([first], access).connect();
      try {
        expect(cluster.masters).toHaveLength(3);
        // One key per master: each read goes to a node only discovered, never given.
        const owners = new Map<string, string>();
        for (let i = 0; owners.size < 3 && i < 1_000; i++) {
          const key = `secure-discovery:{${i}}`;
          const slot = Number(
            await cluster.sendCommand(undefined, true, ['CLUSTER', 'KEYSLOT', key]),
          );
          const owner = cluster.slots[slot]?.master.address;
          if (owner !== undefined && !owners.has(owner)) owners.set(owner, key);
        }
        expect(owners.size).toBe(3);
        for (const key of owners.values()) expect(await store.readOffset(key)).toBeNull();
        await store.ping();
      } finally {
        await cluster.close();
        await store.close();
      }
    });
  },
);
