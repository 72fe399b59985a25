/**
 * A Redis, or a Redis Cluster of three masters, of a tool's or a test's own on free ports
 * (redis-server, persistence off but for a snapshot that `SHUTDOWN SAVE` writes), never the
 * shared development ones: what runs on it may empty or restart it, and nothing else writes to it.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { freePort } from './free-port.ts';
import { down, up } from './lifecycle.ts';
import { serviceDir } from './paths.ts';
import { redisServerService } from './redis.ts';
import {
  CLUSTER_BUS_OFFSET,
  clusterNodes,
  formRedisCluster,
  redisClusterNodeServices,
} from './redis-cluster.ts';
import type { Service } from './service.ts';

/** Starts a fresh Redis named `name` (its folder under `.services/`) on a free port. */
export async function startOwnRedis(name: string): Promise<Service> {
  const redis = redisServerService({ name, port: await freePort(), extraArgs: [] });
  rmSync(serviceDir(redis.name), { recursive: true, force: true });
  await up(redis, () => undefined);
  return redis;
}

/** Stops a Redis of {@link startOwnRedis} and deletes its folder (its log, its snapshot). */
export async function stopOwnRedis(redis: Service): Promise<void> {
  await down(redis);
  rmSync(serviceDir(redis.name), { recursive: true, force: true });
}

/** A cluster of {@link startOwnRedisCluster}. */
export interface OwnRedisCluster {
  /** The masters' `host:port`, as clients are given them (`REDIS_CLUSTER_NODES`). */
  readonly nodes: readonly string[];
  readonly services: readonly Service[];
}

/** Starts a fresh cluster of three masters, no replicas, on free ports, and forms it. */
export async function startOwnRedisCluster(): Promise<OwnRedisCluster> {
  const ports: number[] = [];
  // Each node binds its bus at its port + 10000 too.
  while (ports.length < 3) ports.push(await freePort({ alsoAbove: CLUSTER_BUS_OFFSET }));
  const spec = { ports };
  const services = redisClusterNodeServices(spec);
  for (const service of services) {
    rmSync(serviceDir(service.name), { recursive: true, force: true });
    await up(service, () => undefined);
  }
  await formRedisCluster(() => undefined, spec);
  return { nodes: clusterNodes(spec), services };
}

/** Stops a cluster of {@link startOwnRedisCluster} and deletes its nodes' folders. */
export async function stopOwnRedisCluster(cluster: OwnRedisCluster): Promise<void> {
  for (const service of cluster.services) await stopOwnRedis(service);
}
