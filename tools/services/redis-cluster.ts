/**
 * A Redis Cluster of three masters on loopback (ports 7001 to 7003), from the same Debian
 * `redis-server` as the single Redis, persistence off: each node is a {@link Service} of its
 * own, and {@link formRedisCluster} joins them with `redis-cli --cluster create` once they run.
 * Idempotent: a healthy cluster is left alone; a half-formed one (a node restarted alone, a
 * creation interrupted) is reset and created again, which loses only disposable test data.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'redis';
import { type ClusterHealth, clusterHealth } from './probes.ts';
import { redisServerService } from './redis.ts';
import { runLogged } from './run.ts';
import { serviceDir } from './paths.ts';
import type { Service } from './service.ts';
import { waitUntilReady } from './wait.ts';

const HOST = '127.0.0.1';

/** The nodes' ports: three masters, no replicas. */
export const REDIS_CLUSTER_PORTS: readonly number[] = [7001, 7002, 7003];

/** `host:port` of every node, as clients are given them (`REDIS_CLUSTER_NODES`). */
export const REDIS_CLUSTER_NODES: readonly string[] = REDIS_CLUSTER_PORTS.map((port) =>
  `${HOST}:${port}`
);

/** The three nodes as services; each starts without the cluster configuration of a past run. */
export function redisClusterNodeServices(): Service[] {
  return REDIS_CLUSTER_PORTS.map((port) =>
    redisServerService({
      name: `redis-cluster-${port}`,
      port,
      extraArgs: [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '5000',
      ],
      // Data is not persisted, so a node's old cluster membership would only confuse the rest.
      beforeStart: (dir) => rmSync(join(dir, 'nodes.conf'), { force: true }),
    })
  );
}

/**
 * Makes the running nodes one healthy cluster: nothing when it already is; otherwise resets
 * every node and creates the cluster, then waits until every node says `cluster_state:ok`.
 * Answers which of the two it did.
 */
export async function formRedisCluster(
  log: (line: string) => void,
): Promise<'formed' | 'already formed'> {
  const health = await clusterHealth(REDIS_CLUSTER_NODES);
  if (health.ok) return 'already formed';
  log(`forming the cluster (${health.reason})`);
  for (const node of REDIS_CLUSTER_NODES) await resetNode(node);
  await runLogged(
    'redis-cli',
    ['--cluster', 'create', ...REDIS_CLUSTER_NODES, '--cluster-replicas', '0', '--cluster-yes'],
    { logFile: join(serviceDir('redis-cluster-7001'), 'create.log') },
  );
  await waitUntilReady(async () => {
    const now: ClusterHealth = await clusterHealth(REDIS_CLUSTER_NODES);
    if (!now.ok) throw new Error(now.reason);
  }, { timeoutMs: 30_000, intervalMs: 250 });
  return 'formed';
}

/** Forgets a node's data and cluster membership (a fresh node, as `--cluster create` wants). */
async function resetNode(node: string): Promise<void> {
  const client = await createClient({ url: `redis://${node}` }).connect();
  try {
    await client.flushAll();
    await client.sendCommand(['CLUSTER', 'RESET', 'HARD']);
  } finally {
    client.destroy();
  }
}
