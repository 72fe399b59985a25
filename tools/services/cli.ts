/**
 * `npm run services:up | services:down | services:status`: the real Kafka, Redis, Redis
 * Cluster (three masters) and Upstash-REST endpoint of development and CI, on loopback, each
 * command idempotent.
 *
 * - `up` starts what is not running (Kafka alongside Redis, then the REST endpoint in front of
 *   Redis, alongside the cluster's nodes, then the cluster formed of them), waits until each answers a real request, prints the addresses and writes the
 *   client environment to `.services/env`.
 * - `down` stops only the processes `up` started (by pid), SIGTERM first, SIGKILL after a grace
 *   period.
 * - `status` prints each service: running or stopped, pid, address.
 *
 * @module
 */
import { relative } from 'node:path';
import { kafkaService } from './kafka.ts';
import { kafkaVersion } from './kafka-classpath.ts';
import { formatEnv, removeEnvFile, type ServiceEnv, writeEnvFile } from './env-file.ts';
import { down, status, up, type UpResult } from './lifecycle.ts';
import { ENV_FILE, REPO_ROOT } from './paths.ts';
import { REDIS_URL, redisService } from './redis.ts';
import {
  formRedisCluster,
  REDIS_CLUSTER_NODES,
  redisClusterNodeServices,
} from './redis-cluster.ts';
import type { Service } from './service.ts';
import { UPSTASH_REST_URL, upstashRestService, upstashRestToken } from './upstash-rest-service.ts';

const USAGE = 'usage: node tools/services/cli.ts up|down|status';

async function main(command: string | undefined): Promise<number> {
  const kafka = kafkaService();
  const redis = redisService();
  const rest = upstashRestService();
  const clusterNodes = redisClusterNodeServices();
  const all = [kafka, redis, rest, ...clusterNodes];
  switch (command) {
    case 'up':
      return await upAll(kafka, [redis, rest], clusterNodes);
    case 'down':
      return await downAll([rest, redis, ...clusterNodes, kafka]);
    case 'status':
      return await statusAll(all);
    default:
      console.error(USAGE);
      return 2;
  }
}

/**
 * Kafka starts alongside the Redis chain, whose REST endpoint needs Redis first, and alongside
 * the cluster's nodes, which are then formed into one cluster.
 */
async function upAll(
  kafka: Service,
  chain: readonly Service[],
  clusterNodes: readonly Service[],
): Promise<number> {
  const started = Date.now();
  console.log(
    `services: up (Apache Kafka ${kafkaVersion()}, Redis, Upstash REST endpoint, Redis Cluster)`,
  );
  const results = await Promise.all([
    upOne(kafka),
    upCluster(clusterNodes),
    (async () => {
      const outcomes: boolean[] = [];
      for (const service of chain) {
        const ok = await upOne(service);
        outcomes.push(ok);
        if (!ok) break;
      }
      return outcomes.every(Boolean);
    })(),
  ]);
  if (!results.every(Boolean)) {
    console.error(
      `\nservices: up failed after ${seconds(started)}; 'npm run services:status' shows what runs.`,
    );
    return 1;
  }
  const env: ServiceEnv = {
    KAFKA_BROKERS: kafka.address,
    REDIS_URL,
    REDIS_CLUSTER_NODES: REDIS_CLUSTER_NODES.join(','),
    UPSTASH_REDIS_REST_URL: UPSTASH_REST_URL,
    UPSTASH_REDIS_REST_TOKEN: upstashRestToken(),
  };
  writeEnvFile(env);
  console.log(
    `\nservices: up in ${seconds(started)}. Client environment (also in ${
      relative(REPO_ROOT, ENV_FILE)
    }):\n` +
      formatEnv(env) +
      `Load it into a shell with: set -a; . ${relative(REPO_ROOT, ENV_FILE)}; set +a`,
  );
  return 0;
}

/** Starts the cluster's nodes (one after the other: Redis is light), then forms the cluster. */
async function upCluster(nodes: readonly Service[]): Promise<boolean> {
  for (const node of nodes) if (!(await upOne(node))) return false;
  const started = Date.now();
  try {
    const outcome = await formRedisCluster((line) => console.log(`redis-cluster: ${line}`));
    console.log(
      row(
        'redis-cluster',
        `${outcome}, 3 masters`,
        REDIS_CLUSTER_NODES.join(','),
        seconds(started),
      ),
    );
    return true;
  } catch (error) {
    console.error(`redis-cluster: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

async function upOne(service: Service): Promise<boolean> {
  const started = Date.now();
  try {
    const result = await up(service, (line) => console.log(`${service.name}: ${line}`));
    console.log(row(service.name, describeUp(result), service.address, seconds(started)));
    return true;
  } catch (error) {
    console.error(`${service.name}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
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

async function downAll(services: readonly Service[]): Promise<number> {
  removeEnvFile();
  for (const service of services) {
    const result = await down(service);
    const what = result.state === 'not-ours'
      ? result.portInUse ? 'not started by up: left alone (its port is in use)' : 'not running'
      : result.state === 'not-running'
      ? 'not running (stale pid file removed)'
      : result.state === 'killed'
      ? 'stopped (SIGKILL after the grace period)'
      : 'stopped';
    console.log(row(service.name, what, service.address));
  }
  return 0;
}

async function statusAll(services: readonly Service[]): Promise<number> {
  const results = await Promise.all(
    services.map(async (service) => ({ service, result: await status(service) })),
  );
  for (const { service, result } of results) {
    const what = result.state === 'running'
      ? `running, pid ${result.pid}${result.answers ? '' : ', NOT ANSWERING'}`
      : result.state === 'external'
      ? 'port in use by a process up did not start'
      : 'stopped';
    console.log(row(service.name, what, service.address));
  }
  return 0;
}

function row(name: string, what: string, address: string, elapsed = ''): string {
  return `  ${name.padEnd(18)} ${address.padEnd(24)} ${what}${
    elapsed === '' ? '' : ` (${elapsed})`
  }`;
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

process.exitCode = await main(process.argv[2]);
