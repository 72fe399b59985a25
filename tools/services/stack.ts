/**
 * The whole development stack as one unit: Kafka alongside Redis and its Upstash-REST endpoint,
 * alongside the Redis Cluster's nodes formed into one cluster. `npm run services:up` brings it
 * up and keeps it; the test setup brings it up when nothing is configured and stops, at the
 * end of the run, only what it started itself.
 *
 * @module
 */
import type { ServiceEnv } from './env-file.ts';
import { kafkaService } from './kafka.ts';
import { down, up, type UpResult } from './lifecycle.ts';
import { REDIS_URL, redisService } from './redis.ts';
import {
  formRedisCluster,
  REDIS_CLUSTER_NODES,
  redisClusterNodeServices,
} from './redis-cluster.ts';
import type { Service } from './service.ts';
import { UPSTASH_REST_URL, upstashRestService, upstashRestToken } from './upstash-rest-service.ts';

/** The stack's services. */
export interface Stack {
  readonly kafka: Service;
  /** Redis, then the REST endpoint in front of it. */
  readonly chain: readonly Service[];
  readonly clusterNodes: readonly Service[];
  /** Every service, in the order `down` stops them (the REST endpoint before its Redis). */
  readonly stopOrder: readonly Service[];
}

/** The stack of this repository (its ports and state under `.services/`). */
export function stack(): Stack {
  const kafka = kafkaService();
  const redis = redisService();
  const rest = upstashRestService();
  const clusterNodes = redisClusterNodeServices();
  return {
    kafka,
    chain: [redis, rest],
    clusterNodes,
    stopOrder: [rest, redis, ...clusterNodes, kafka],
  };
}

/** What {@link upStack} did. */
export interface StackUp {
  /** True when every service answers. */
  readonly ok: boolean;
  /** The client environment (also when some failed: what `.services/env` would hold). */
  readonly env: ServiceEnv;
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
      report.error(`${service.name}: ${message(error)}`);
      return false;
    }
  };
  const upCluster = async (): Promise<boolean> => {
    for (const node of of.clusterNodes) if (!(await upOne(node))) return false;
    const since = Date.now();
    try {
      const outcome = await formRedisCluster((text) => report.line(`redis-cluster: ${text}`));
      const masters = `${outcome}, ${of.clusterNodes.length} masters`;
      report.line(row('redis-cluster', masters, REDIS_CLUSTER_NODES.join(','), seconds(since)));
      return true;
    } catch (error) {
      report.error(`redis-cluster: ${message(error)}`);
      return false;
    }
  };
  const upChain = async (): Promise<boolean> => {
    for (const service of of.chain) if (!(await upOne(service))) return false;
    return true;
  };
  const results = await Promise.all([upOne(of.kafka), upCluster(), upChain()]);
  return {
    ok: results.every(Boolean),
    env: {
      KAFKA_BROKERS: of.kafka.address,
      REDIS_URL,
      REDIS_CLUSTER_NODES: REDIS_CLUSTER_NODES.join(','),
      UPSTASH_REDIS_REST_URL: UPSTASH_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: upstashRestToken(),
    },
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
  switch (result.state) {
    case 'started':
      return `started, pid ${result.pid}`;
    case 'already-running':
      return `already running, pid ${result.pid}`;
    case 'external':
      return "REUSED: already served by a process 'up' did not start; 'down' leaves it alone";
  }
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
