/**
 * A failover on a TLS Redis Cluster with an ACL user: the store, given only the old master, logs
 * in over TLS to the replica that took over, a node it had never connected to (the cluster
 * client's defaults apply to every node it finds). The cluster is the test's own: a master and
 * its replica on 17111 and 17112 (cluster bus 27111, 27112), stopped at the end.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { redisAccess } from '../../src/store/open.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { redisServerService, SECURE_REDIS_USER } from '../../tools/services/redis.ts';
import { waitUntilReady } from '../../tools/services/wait.ts';
import { describeWithServices } from '../support/services.ts';
import { clusterClient } from '../support/store-target.ts';
import { createClient } from 'redis';

const PORTS = [17111, 17112] as const;

describeWithServices(
  ['secureRedisCluster', 'redis-server'],
  'a failover on a TLS Redis Cluster',
  ({ secureRedisCluster }) => {
    const nodes = PORTS.map((port) =>
      redisServerService({
        name: `redis-failover-${port}`,
        port,
        secure: SECURE_REDIS_USER,
        extraArgs: [
          '--tls-cluster',
          'yes',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '2000',
        ],
        beforeStart: (dir) => rmSync(`${dir}/nodes.conf`, { force: true }),
      })
    );
    const [master, replica] = PORTS.map((port) => `127.0.0.1:${port}`);
    const config = loadConfig({
      ...secureRedisCluster.settings,
      REDIS_CLUSTER_NODES: master ?? '',
    });
    if (config.store.kind !== 'redis-cluster') throw new Error(config.store.kind);
    const access = redisAccess(config.store.security);
    const client = (node: string) =>
      createClient({
        url: `rediss://${node}`,
        ...(access.username === undefined ? {} : { username: access.username }),
        ...(access.password === undefined ? {} : { password: access.password }),
        socket: { tls: true, ...access.tls },
      }).connect();
    const field = (info: string, name: string) =>
      new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];

    beforeAll(async () => {
      // Fresh nodes: one left running by an interrupted run would keep its old cluster.
      for (const node of nodes) await down(node);
      for (const node of nodes) await up(node, () => undefined);
      const first = await client(master ?? '');
      const second = await client(replica ?? '');
      try {
        await first.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
        await second.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(PORTS[0])]);
        const masterId = String(await first.sendCommand(['CLUSTER', 'MYID']));
        await waitUntilReady(async () => {
          await second.sendCommand(['CLUSTER', 'REPLICATE', masterId]);
        }, { timeoutMs: 30_000, intervalMs: 250 });
        await waitUntilReady(async () => {
          const info = String(await second.sendCommand(['INFO', 'replication']));
          if (field(info, 'master_link_status') !== 'up') {
            throw new Error('the replica is not in sync');
          }
          const state = String(await first.sendCommand(['CLUSTER', 'INFO']));
          if (field(state, 'cluster_state') !== 'ok') throw new Error('the cluster is not ok');
        }, { timeoutMs: 30_000, intervalMs: 250 });
      } finally {
        first.destroy();
        second.destroy();
      }
    }, 90_000);

    afterAll(async () => {
      for (const node of nodes) {
        await down(node);
        rmSync(serviceDir(node.name), { recursive: true, force: true });
      }
    }, 60_000);

    test('the store reaches the replica that took over, over TLS with the user', async () => {
      const store = await RedisStore.connectCluster([master ?? ''], { access });
      try {
        expect(await store.readOffset('failover:{1}:offset')).toBeNull();
        const promoted = await client(replica ?? '');
        try {
          await promoted.sendCommand(['CLUSTER', 'FAILOVER']);
          await waitUntilReady(async () => {
            const info = String(await promoted.sendCommand(['INFO', 'replication']));
            if (field(info, 'role') !== 'master') throw new Error('the replica did not take over');
          }, { timeoutMs: 30_000, intervalMs: 250 });
        } finally {
          promoted.destroy();
        }
        // The old master, now a replica, answers a read with MOVED (no READONLY on the store's
        // connections): an answer comes from the new master, logged in over TLS as the user (the
        // default user is off).
        await waitUntilReady(async () => {
          expect(await store.readOffset('failover:{1}:offset')).toBeNull();
        }, { timeoutMs: 30_000, intervalMs: 250 });
        const cluster = await clusterClient([master ?? ''], access).connect();
        try {
          expect(cluster.masters.map((node) => node.address)).toEqual([replica]);
        } finally {
          await cluster.close();
        }
      } finally {
        await store.close();
      }
    }, 90_000);
  },
);
