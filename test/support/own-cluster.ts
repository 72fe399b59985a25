/**
 * A Redis Cluster a test runs for itself (three masters, one replica each, on free ports, from
 * `tools/services`), so that it may kill or demote a master: never the shared one at 7001-7003.
 * Also what a failover test needs to know of it: which master holds a key, which node is its
 * replica, and the replication offsets that prove writes were not copied.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { createClient } from 'redis';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { readPid } from '../../tools/services/process.ts';
import {
  CLUSTER_BUS_OFFSET,
  clusterNodes,
  formRedisCluster,
  redisClusterNodeServices,
  type RedisClusterSpec,
} from '../../tools/services/redis-cluster.ts';
import type { Service } from '../../tools/services/service.ts';
import { freePort } from '../../tools/services/free-port.ts';

/** One shard: a master and its replica, as services of ours. */
export interface Shard {
  readonly master: Service;
  readonly replica: Service;
}

/** A cluster of the test's own. */
export interface OwnCluster {
  /** The masters' `host:port`, as clients are given them. */
  readonly nodes: readonly string[];
  readonly services: readonly Service[];
  /** The shard whose master serves `key` now. */
  shardOf(key: string): Promise<Shard>;
  /** `host:port` of the nodes that answer now (the dead master left out). */
  liveNodes(): Promise<string[]>;
  /** Sends one command to one node, on a connection of its own. */
  command(node: Service, args: readonly string[]): Promise<unknown>;
  /** Resolves once `node` is a master that answers and the cluster's state is ok (max 60 s). */
  promoted(node: Service): Promise<void>;
  stop(): Promise<void>;
}

/** A field of an `INFO` reply. */
export function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];
}

/** Starts three masters and three replicas on free ports and forms them into one cluster. */
export async function startOwnCluster(): Promise<OwnCluster> {
  const ports: number[] = [];
  // Each node binds its bus at its port + 10000 too.
  while (ports.length < 6) ports.push(await freePort({ alsoAbove: CLUSTER_BUS_OFFSET }));
  const spec: RedisClusterSpec = {
    ports: ports.slice(0, 3),
    replicaPorts: ports.slice(3),
    // A failover in a few seconds rather than the default's dozen.
    nodeTimeoutMs: 3_000,
  };
  const services = redisClusterNodeServices(spec);
  for (const service of services) {
    rmSync(serviceDir(service.name), { recursive: true, force: true });
    await up(service, () => undefined);
  }
  await formRedisCluster(() => undefined, spec);
  const byPort = new Map(services.map((service) => [service.port, service]));

  const command = async (node: Service, args: readonly string[]): Promise<unknown> => {
    const client = createClient({
      url: node.address,
      socket: { connectTimeout: 2_000, reconnectStrategy: false },
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await client.sendCommand([...args]);
    } finally {
      client.destroy();
    }
  };

  /** `CLUSTER NODES` as seen by a live master: id, port, flags, master id, slot ranges. */
  const topology = async () => {
    for (const port of ports) {
      const node = byPort.get(port);
      if (node === undefined) continue;
      try {
        const text = String(await command(node, ['CLUSTER', 'NODES']));
        return text.trim().split('\n').map((line) => {
          const [id = '', address = '', flags = '', masterId = '', , , , , ...slots] = line
            .split(' ');
          return {
            id,
            port: Number(/:(\d+)@/.exec(address)?.[1]),
            flags: flags.split(','),
            masterId,
            slots: slots.flatMap((range) => {
              const [from, to = from] = range.split('-').map(Number);
              return from === undefined || Number.isNaN(from) ? [] : [[from, to ?? from]];
            }),
          };
        });
      } catch {
        // That node is down: ask the next.
      }
    }
    throw new Error('no node of the cluster answers');
  };

  return {
    nodes: clusterNodes(spec),
    services,
    command,
    async liveNodes() {
      const live: string[] = [];
      for (const service of services) {
        try {
          await command(service, ['PING']);
          live.push(`${service.host}:${service.port}`);
        } catch {
          // Down: left out.
        }
      }
      return live;
    },
    async shardOf(key) {
      const anyNode = services[0];
      if (anyNode === undefined) throw new Error('no node');
      const slot = Number(await command(anyNode, ['CLUSTER', 'KEYSLOT', key]));
      const nodes = await topology();
      const master = nodes.find((node) =>
        node.flags.includes('master') &&
        node.slots.some(([from = 0, to = 0]) => slot >= from && slot <= to)
      );
      const replica = nodes.find((node) => node.masterId === master?.id);
      const masterService = byPort.get(master?.port ?? 0);
      const replicaService = byPort.get(replica?.port ?? 0);
      if (masterService === undefined || replicaService === undefined) {
        throw new Error(`no master with a replica serves slot ${slot}`);
      }
      return { master: masterService, replica: replicaService };
    },
    async promoted(node) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          const role = String(await command(node, ['INFO', 'replication']));
          const state = String(await command(node, ['CLUSTER', 'INFO']));
          if (
            infoField(role, 'role') === 'master' && infoField(state, 'cluster_state') === 'ok'
          ) return;
        } catch {
          // Still waking up.
        }
        if (Date.now() > deadline) throw new Error(`${node.name} was not promoted within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      for (const service of services) {
        // A node a test froze (SIGSTOP) would wait out the grace period.
        const pid = readPid(service.pidFile);
        if (pid !== undefined) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // Already gone.
          }
        }
        await down(service);
      }
    },
  };
}
