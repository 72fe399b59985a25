/**
 * The whole development stack as one unit: Kafka alongside Redis and its Upstash-REST endpoint,
 * alongside the Redis Cluster's nodes formed into one cluster. `npm run services:up` brings it
 * up and keeps it; the test setup brings it up when nothing is configured and stops, at the
 * end of the run, only what it started itself.
 *
 * @module
 */
import type { SecureServiceEnv, ServiceEnv } from './env-file.ts';
import { kafkaService } from './kafka.ts';
import { down, up, type UpResult } from './lifecycle.ts';
import { REDIS_URL, redisService } from './redis.ts';
import {
  clusterNodes,
  formRedisCluster,
  PLAIN_CLUSTER,
  PLAIN_REPLICA_PORTS,
  REDIS_CLUSTER_NODES,
  redisClusterNodeServices,
  type RedisClusterSpec,
  SECURE_CLUSTER,
  withReplicas,
} from './redis-cluster.ts';
import { secureEnv, type SecureStack, secureStack } from './secure-stack.ts';
import type { Service } from './service.ts';
import { UPSTASH_REST_URL, upstashRestService, upstashRestToken } from './upstash-rest-service.ts';
import { messageOf } from '../../src/text/error-message.ts';

/** The stack's services. */
export interface Stack {
  readonly kafka: Service;
  /** Redis, then the REST endpoint in front of it. */
  readonly chain: readonly Service[];
  readonly clusterNodes: readonly Service[];
  /** The development cluster (with replicas, when asked for). */
  readonly cluster: RedisClusterSpec;
  /** The secure services (TLS, SASL, ACL users), when asked for. */
  readonly secure: SecureStack | null;
  /** Every service, in the order `down` stops them (the REST endpoint before its Redis). */
  readonly stopOrder: readonly Service[];
}

/**
 * The stack of this repository (its ports and state under `.services/`); with `secure`, also
 * the secure services (tools/services/secure-stack.ts); with `replicas`, a replica for each
 * master of the Redis Cluster.
 */
export function stack(
  options: { readonly secure?: boolean; readonly replicas?: boolean } = {},
): Stack {
  const kafka = kafkaService();
  const redis = redisService();
  const rest = upstashRestService();
  const cluster = options.replicas === true
    ? withReplicas(PLAIN_CLUSTER, PLAIN_REPLICA_PORTS)
    : PLAIN_CLUSTER;
  const clusterNodes = redisClusterNodeServices(cluster);
  const secure = options.secure === true ? secureStack() : null;
  const secureServices = secure === null
    ? []
    : [secure.redis, ...secure.clusterNodes, secure.kafka];
  return {
    kafka,
    chain: [redis, rest],
    clusterNodes,
    cluster,
    secure,
    stopOrder: [...secureServices, rest, redis, ...clusterNodes, kafka],
  };
}

/** What {@link upStack} did. */
export interface StackUp {
  /** True when every service answers. */
  readonly ok: boolean;
  /** The client environment (also when some failed: what `.services/env` would hold). */
  readonly env: ServiceEnv | (ServiceEnv & SecureServiceEnv);
  /** The services this call started (not those already running): what the caller may stop. */
  readonly started: readonly Service[];
}

/** Where {@link upStack} reports: one line per event, and failures. */
export interface StackReport {
  readonly line: (text: string) => void;
  readonly error: (text: string) => void;
}

/** Brings every service of `of` up (idempotent), reporting each as it answers. */
export async function upStack(of: Stack, report: StackReport): Promise<StackUp> {
  const started: Service[] = [];
  const upOne = async (service: Service): Promise<boolean> => {
    const since = Date.now();
    try {
      const result = await up(service, (text) => report.line(`${service.name}: ${text}`));
      if (result.state === 'started') started.push(service);
      report.line(row(service.name, describeUp(result), service.address, seconds(since)));
      return true;
    } catch (error) {
      report.error(`${service.name}: ${messageOf(error)}`);
      return false;
    }
  };
  const upCluster = async (
    name: string,
    nodes: readonly Service[],
    spec: RedisClusterSpec,
  ): Promise<boolean> => {
    for (const node of nodes) if (!(await upOne(node))) return false;
    const since = Date.now();
    try {
      const outcome = await formRedisCluster((text) => report.line(`${name}: ${text}`), spec);
      const replicas = spec.replicaPorts?.length ?? 0;
      const masters = `${outcome}, ${spec.ports.length} masters` +
        (replicas === 0 ? '' : `, ${replicas} replicas`);
      report.line(row(name, masters, clusterNodes(spec).join(','), seconds(since)));
      return true;
    } catch (error) {
      report.error(`${name}: ${messageOf(error)}`);
      return false;
    }
  };
  const upChain = async (): Promise<boolean> => {
    for (const service of of.chain) if (!(await upOne(service))) return false;
    return true;
  };
  const secure = of.secure;
  const results = await Promise.all([
    upOne(of.kafka),
    upCluster('redis-cluster', of.clusterNodes, of.cluster),
    upChain(),
    ...(secure === null ? [] : [
      upOne(secure.kafka),
      upOne(secure.redis),
      upCluster('redis-cluster-secure', secure.clusterNodes, SECURE_CLUSTER),
    ]),
  ]);
  const env: ServiceEnv = {
    KAFKA_BROKERS: of.kafka.address,
    REDIS_URL,
    REDIS_CLUSTER_NODES: REDIS_CLUSTER_NODES.join(','),
    UPSTASH_REDIS_REST_URL: UPSTASH_REST_URL,
    UPSTASH_REDIS_REST_TOKEN: upstashRestToken(),
  };
  return {
    ok: results.every(Boolean),
    env: secure === null ? env : { ...env, ...secureEnv(secure) },
    started,
  };
}

/** Stops `services` that are ours (by pid), in the order given, reporting each. */
export async function downServices(
  services: readonly Service[],
  report: (text: string) => void,
): Promise<void> {
  for (const service of services) {
    const result = await down(service);
    const what = result.state === 'not-ours'
      ? result.portInUse ? 'not started by up: left alone (its port is in use)' : 'not running'
      : result.state === 'not-running'
      ? 'not running (stale pid file removed)'
      : result.state === 'killed'
      ? 'stopped (SIGKILL after the grace period)'
      : 'stopped';
    report(row(service.name, what, service.address));
  }
}

function describeUp(result: UpResult): string {
  return result.state === 'started'
    ? `started, pid ${result.pid}`
    : `already running, pid ${result.pid}`;
}

/** One aligned line: name, address, what happened, how long it took. */
export function row(name: string, what: string, address: string, elapsed = ''): string {
  return `  ${name.padEnd(18)} ${address.padEnd(24)} ${what}${
    elapsed === '' ? '' : ` (${elapsed})`
  }`;
}

/** Seconds since `since` (ms), as `1.2 s`. */
export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}
