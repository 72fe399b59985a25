/**
 * A Redis Cluster of three masters on loopback (ports 17001 to 17003; the secure one, TLS only
 * with an ACL user, on 17101 to 17103), from the same Debian `redis-server` as the single Redis,
 * persistence off: each node is a {@link Service} of its own, and {@link formRedisCluster} joins
 * them with `redis-cli --cluster create` once they run. With replicas ({@link withReplicas}:
 * `services:up -- --replicas`, or a failover test's own cluster) each master has one, which
 * Redis promotes when its master fails.
 * Idempotent: a healthy cluster is left alone; a half-formed one (a node restarted alone, a
 * creation interrupted) is reset and created again, which loses only disposable test data.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'redis';
import { type ClusterHealth, clusterHealth, type RedisLogin } from './probes.ts';
import {
  redisServerService,
  SECURE_REDIS_USER,
  type SecureRedis,
  secureRedisLogin,
} from './redis.ts';
import { runLogged } from './run.ts';
import { TLS_FILES } from './certificates.ts';
import { serviceDir } from './paths.ts';
import type { Service } from './service.ts';
import { waitUntilReady } from './wait.ts';

const HOST = '127.0.0.1';

/** One cluster of ours: its masters' ports, its replicas' (one per master, or none), TLS. */
export interface RedisClusterSpec {
  /** The masters' ports: where clients are pointed. */
  readonly ports: readonly number[];
  /** One replica per master, on these ports; none when absent. */
  readonly replicaPorts?: readonly number[];
  readonly secure?: SecureRedis;
  /** `cluster-node-timeout`: how long a node is unreachable before a failover. Default 5,000. */
  readonly nodeTimeoutMs?: number;
}

/** The development cluster: plaintext, Redis's default user. */
export const PLAIN_CLUSTER: RedisClusterSpec = { ports: [17001, 17002, 17003] };

/** The secure cluster: TLS only (between its nodes too), one ACL user, the default user off. */
export const SECURE_CLUSTER: RedisClusterSpec = {
  ports: [17101, 17102, 17103],
  secure: SECURE_REDIS_USER,
};

/** The replicas of the development cluster, one per master (`services:up -- --replicas`). */
export const PLAIN_REPLICA_PORTS: readonly number[] = [17004, 17005, 17006];

/** `spec` with one replica per master on `replicaPorts`. */
export function withReplicas(
  spec: RedisClusterSpec,
  replicaPorts: readonly number[],
): RedisClusterSpec {
  if (replicaPorts.length !== spec.ports.length) {
    throw new Error(
      `a cluster of ${spec.ports.length} masters takes ${spec.ports.length} replica ports, ` +
        `not ${replicaPorts.length}`,
    );
  }
  return { ...spec, replicaPorts };
}

/** `host:port` of every master of `spec`, as clients are given them (`REDIS_CLUSTER_NODES`). */
export function clusterNodes(spec: RedisClusterSpec): string[] {
  return spec.ports.map((port) => `${HOST}:${port}`);
}

/** `host:port` of every node of `spec`, masters then replicas. */
function allNodes(spec: RedisClusterSpec): string[] {
  return [...spec.ports, ...(spec.replicaPorts ?? [])].map((port) => `${HOST}:${port}`);
}

/** Where a node binds its cluster bus, above its port (Redis's default: `cluster-port` 0). */
export const CLUSTER_BUS_OFFSET = 10_000;

/** `host:port` of every node of the development cluster. */
export const REDIS_CLUSTER_NODES: readonly string[] = clusterNodes(PLAIN_CLUSTER);

/**
 * The nodes as services, masters then replicas; each starts without the cluster configuration of
 * a past run.
 */
export function redisClusterNodeServices(spec: RedisClusterSpec = PLAIN_CLUSTER): Service[] {
  return [...spec.ports, ...(spec.replicaPorts ?? [])].map((port) =>
    redisServerService({
      name: `redis-cluster-${port}`,
      port,
      ...(spec.secure === undefined ? {} : { secure: spec.secure }),
      extraArgs: [
        ...(spec.secure === undefined ? [] : ['--tls-cluster', 'yes']),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(spec.nodeTimeoutMs ?? 5_000),
      ],
      // Data is not persisted, so a node's old cluster membership would only confuse the rest.
      beforeStart: (dir) => rmSync(join(dir, 'nodes.conf'), { force: true }),
    })
  );
}

/**
 * Makes the running nodes one healthy cluster: nothing when it already is; otherwise resets
 * every node and creates the cluster, then waits until every node says `cluster_state:ok` and
 * every replica has copied its master. Answers which of the two it did.
 */
export async function formRedisCluster(
  log: (line: string) => void,
  spec: RedisClusterSpec = PLAIN_CLUSTER,
): Promise<'formed' | 'already formed'> {
  const nodes = allNodes(spec);
  const login = spec.secure === undefined ? undefined : secureRedisLogin(spec.secure);
  const health = await clusterHealth(nodes, login);
  if (health.ok) return 'already formed';
  log(`forming the cluster (${health.reason})`);
  for (const node of nodes) await resetNode(node, login);
  await runLogged(
    'redis-cli',
    [
      ...(login === undefined ? [] : ['--tls', '--cacert', TLS_FILES.ca, '--user', login.username]),
      '--cluster',
      'create',
      ...nodes,
      // The masters come first: redis-cli makes the first third masters, the rest replicas.
      '--cluster-replicas',
      spec.replicaPorts === undefined ? '0' : '1',
      '--cluster-yes',
    ],
    {
      logFile: join(serviceDir(`redis-cluster-${spec.ports[0]}`), 'create.log'),
      // redis-cli takes the password from its environment: it never shows on a command line.
      ...(login === undefined ? {} : { env: { REDISCLI_AUTH: login.password } }),
    },
  );
  await waitUntilReady(async () => {
    const now: ClusterHealth = await clusterHealth(nodes, login);
    if (!now.ok) throw new Error(now.reason);
    for (const port of spec.replicaPorts ?? []) await expectInSync(`${HOST}:${port}`, login);
  }, { timeoutMs: 30_000, intervalMs: 250 });
  return 'formed';
}

/** A client of one node of ours, connected. */
async function nodeClient(node: string, login: RedisLogin | undefined) {
  return await (login === undefined ? createClient({ url: `redis://${node}` }) : createClient({
    url: `rediss://${node}`,
    username: login.username,
    password: login.password,
    socket: { tls: true, ca: login.ca },
  })).connect();
}

/** Rejects unless `node` is a replica whose link to its master is up. */
async function expectInSync(node: string, login: RedisLogin | undefined): Promise<void> {
  const client = await nodeClient(node, login);
  try {
    const info = String(await client.sendCommand(['INFO', 'replication']));
    if (!/^role:slave/m.test(info) || !/^master_link_status:up/m.test(info)) {
      throw new Error(`${node} is not yet a replica in sync with its master`);
    }
  } finally {
    client.destroy();
  }
}

/** Forgets a node's data and cluster membership (a fresh node, as `--cluster create` wants). */
async function resetNode(node: string, login: RedisLogin | undefined): Promise<void> {
  const client = await nodeClient(node, login);
  try {
    await client.flushAll();
    await client.sendCommand(['CLUSTER', 'RESET', 'HARD']);
  } finally {
    client.destroy();
  }
}
