/**
 * The store a benchmark writes to: a Redis, or a Redis Cluster of three masters, of its own
 * (`tools/services/own-redis.ts`), so that emptying it before a run never wipes the shared
 * development Redis that other work on the machine is using. Stopped by {@link OwnBenchStore.stop};
 * should the benchmark end another way (an error, Ctrl-C), its servers are killed as it exits.
 *
 * @module
 */
import {
  type OwnRedisCluster,
  startOwnRedis,
  startOwnRedisCluster,
  stopOwnRedis,
  stopOwnRedisCluster,
} from '../services/own-redis.ts';
import { readPid } from '../services/process.ts';
import type { Service } from '../services/service.ts';
import type { BenchStore } from './redis-nodes.ts';

/** A store of the benchmark's own, with the addresses its clients and consumers are given. */
export interface OwnBenchStore {
  /** `redis://host:port` of the single Redis; empty for a cluster. */
  readonly redisUrl: string;
  /** The cluster's masters, `host:port`; empty for a single Redis. */
  readonly clusterNodes: readonly string[];
  /** The same addresses as the services' environment variables name them. */
  readonly env: { readonly REDIS_URL: string; readonly REDIS_CLUSTER_NODES: string };
  stop(): Promise<void>;
}

/** Starts an empty Redis (`redis`) or Redis Cluster (`redis-cluster`) for one benchmark run. */
export async function startOwnBenchStore(store: BenchStore, name: string): Promise<OwnBenchStore> {
  let servers: readonly Service[];
  let redisUrl = '';
  let clusterNodes: readonly string[] = [];
  let stop: () => Promise<void>;
  if (store === 'redis') {
    const redis = await startOwnRedis(name);
    servers = [redis];
    redisUrl = redis.address;
    stop = () => stopOwnRedis(redis);
  } else {
    const cluster: OwnRedisCluster = await startOwnRedisCluster();
    servers = cluster.services;
    clusterNodes = cluster.nodes;
    stop = () => stopOwnRedisCluster(cluster);
  }
  const killOnExit = () => {
    for (const server of servers) {
      const pid = readPid(server.pidFile);
      try {
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', killOnExit);
  return {
    redisUrl,
    clusterNodes,
    env: { REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: clusterNodes.join(',') },
    stop: async () => {
      process.off('exit', killOnExit);
      await stop();
    },
  };
}
