/**
 * `npm run services:up | services:down | services:status`: the real Kafka, Redis, Redis
 * Cluster (three masters) and Upstash-REST endpoint of development and CI, on loopback, each
 * command idempotent.
 *
 * - `up` starts what is not running (Kafka alongside Redis, then the REST endpoint in front of
 *   Redis, alongside the cluster's nodes, then the cluster formed of them), waits until each
 *   answers a real request, prints the addresses and writes the client environment to
 *   `.services/env`. `up --replicas` (or `REDIS_CLUSTER_REPLICAS=1`) gives each master of the
 *   Redis Cluster a replica (ports 17004 to 17006), so that a master can fail over. `up --secure` (or `SERVICES_SECURE=1`) also starts the secure services
 *   (tools/services/secure-stack.ts: a SASL_SSL broker, a TLS Redis and a TLS Redis Cluster
 *   with an ACL user) and adds their `SECURE_*` variables.
 * - `down` stops only the processes `up` started (by pid), the secure ones included, SIGTERM
 *   first, SIGKILL after a grace period.
 * - `status` prints each service: running or stopped, pid, address.
 *
 * @module
 */
import { relative } from 'node:path';
import { kafkaVersion } from './kafka-classpath.ts';
import { formatEnv, removeEnvFile, writeEnvFile } from './env-file.ts';
import { status } from './lifecycle.ts';
import { ENV_FILE, REPO_ROOT } from './paths.ts';
import type { Service } from './service.ts';
import { downServices, row, seconds, type Stack, stack, upStack } from './stack.ts';

const USAGE = 'usage: node tools/services/cli.ts up [--secure] [--replicas]|down|status';

/** Whether `flag` was given, or the environment variable `name` says yes. */
function asked(flags: readonly string[], flag: string, name: string): boolean {
  return flags.includes(flag) ||
    ['1', 'true', 'yes'].includes((process.env[name] ?? '').toLowerCase());
}

async function main(command: string | undefined, flags: readonly string[]): Promise<number> {
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  const secureAsked = asked(flags, '--secure', 'SERVICES_SECURE');
  const replicasAsked = asked(flags, '--replicas', 'REDIS_CLUSTER_REPLICAS');
  const known = ['--secure', '--replicas'];
  if (flags.some((flag) => !known.includes(flag)) || (command !== 'up' && flags.length > 0)) {
    console.error(USAGE);
    return 2;
  }
  // Down and status cover the secure services and the replicas too: whatever of ours runs.
  const services = stack({
    secure: command !== 'up' || secureAsked,
    replicas: command !== 'up' || replicasAsked,
  });
  switch (command) {
    case 'up':
      return await upAll(services);
    case 'down':
      removeEnvFile();
      await downServices(services.stopOrder, (line) => console.log(line));
      return 0;
    case 'status':
      return await statusAll(services.stopOrder);
    default:
      console.error(USAGE);
      return 2;
  }
}

async function upAll(services: Stack): Promise<number> {
  const started = Date.now();
  console.log(
    `services: up (Apache Kafka ${kafkaVersion()}, Redis, Upstash REST endpoint, Redis Cluster${
      services.cluster.replicaPorts === undefined ? '' : ' with replicas'
    }${services.secure === null ? '' : '; secure: SASL_SSL Kafka, TLS Redis, TLS Redis Cluster'})`,
  );
  const result = await upStack(services, {
    line: (text) => console.log(text),
    error: (text) => console.error(text),
  });
  if (!result.ok) {
    console.error(
      `\nservices: up failed after ${seconds(started)}; 'npm run services:status' shows what runs.`,
    );
    return 1;
  }
  writeEnvFile(result.env);
  console.log(
    `\nservices: up in ${seconds(started)}. Client environment (also in ${
      relative(REPO_ROOT, ENV_FILE)
    }):\n` +
      formatEnv(result.env) +
      `Load it into a shell with: set -a; . ${relative(REPO_ROOT, ENV_FILE)}; set +a`,
  );
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

process.exitCode = await main(process.argv[2], process.argv.slice(3));
