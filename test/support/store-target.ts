/**
 * The two Redis deployments every Redis suite runs against: one Redis, and a Redis Cluster of
 * three masters. A suite written once with {@link describeOnRedisStores} runs on both, each
 * skipped (or, with REQUIRE_SERVICES=1, failed) when its service is missing.
 *
 * @example
 * ```ts
 * describeOnRedisStores(['kafka'], 'consumers', ({ kafka }, target) => {
 *   beforeAll(async () => { await emptyStore(target); store = await openStore(target); });
 * });
 * ```
 *
 * @module
 */
import { createClient, createCluster } from 'redis';
import { type RedisAccess, RedisStore } from '../../src/store/redis.ts';
import { describeWithServices, type ServiceAddresses, type ServiceName } from './services.ts';

/** Where a suite's Redis is, and (a secure one) how to log in. */
export type StoreTarget =
  | { readonly kind: 'redis'; readonly url: string; readonly access?: RedisAccess }
  | {
    readonly kind: 'redis-cluster';
    readonly nodes: readonly string[];
    readonly access?: RedisAccess;
  };

/** Connects the product's store to `target`. */
export function openStore(target: StoreTarget): Promise<RedisStore> {
  const options = target.access === undefined ? {} : { access: target.access };
  return target.kind === 'redis'
    ? RedisStore.connect(target.url, options)
    : RedisStore.connectCluster(target.nodes, options);
}

/** node-redis client options of `access` (login, TLS files), for a target's own clients. */
function clientAccess(access: RedisAccess | undefined) {
  if (access === undefined) return {};
  return {
    ...(access.username === undefined ? {} : { username: access.username }),
    ...(access.password === undefined ? {} : { password: access.password }),
    ...(access.tls === undefined ? {} : { socket: { tls: true as const, ...access.tls } }),
  };
}

/** Deletes every key of `target` (the selected database, or every master of the cluster). */
export async function emptyStore(target: StoreTarget): Promise<void> {
  if (target.kind === 'redis') {
    const client = await createClient({ url: target.url, ...clientAccess(target.access) })
      .connect();
    await client.flushDb();
    await client.close();
    return;
  }
  const cluster = await clusterClient(target.nodes, target.access).connect();
  try {
    await Promise.all(
      cluster.masters.map(async (master) => await (await cluster.nodeClient(master)).flushAll()),
    );
  } finally {
    await cluster.close();
  }
}

/** A node-redis cluster client on `nodes`, not connected; `access` for every node it finds. */
export function clusterClient(nodes: readonly string[], access?: RedisAccess) {
  const scheme = access?.tls === undefined ? 'redis' : 'rediss';
  return createCluster({
    rootNodes: nodes.map((node) => ({ url: `${scheme}://${node}` })),
    defaults: clientAccess(access),
  });
}

/** The environment that points a service process (`service/main.ts`) at `target`. */
export function storeEnv(target: StoreTarget): Record<string, string> {
  return target.kind === 'redis'
    ? { STORE: 'redis', REDIS_URL: target.url, REDIS_CLUSTER_NODES: '' }
    : { STORE: 'redis-cluster', REDIS_CLUSTER_NODES: target.nodes.join(','), REDIS_URL: '' };
}

/** `name` of a target, for suite titles. */
export function targetName(target: StoreTarget): string {
  return target.kind === 'redis' ? 'one Redis' : 'a three-master Redis Cluster';
}

/**
 * Registers `body` twice: on one Redis and on the Redis Cluster, each with the other services
 * `needs` names.
 */
export function describeOnRedisStores<const N extends ServiceName>(
  needs: readonly N[],
  name: string,
  body: (services: Pick<ServiceAddresses, N>, target: StoreTarget) => void,
): void {
  describeWithServices([...needs, 'redis'], `${name}, on one Redis`, (services) => {
    body(services, { kind: 'redis', url: services.redis.url });
  });
  describeWithServices([...needs, 'redisCluster'], `${name}, on a Redis Cluster`, (services) => {
    body(services, { kind: 'redis-cluster', nodes: services.redisCluster.nodes });
  });
}
