/**
 * Finding the services of a test run, once, in the global setup. For each service, in order:
 *
 * 1. the environment (`KAFKA_BROKERS`, `REDIS_URL`, `REDIS_CLUSTER_NODES`,
 *    `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN`): when set, that is the answer, reachable or not;
 * 2. `.services/env`, written by `npm run services:up`, when the service answers;
 * 3. the project's own services (`tools/services`, what `npm run services:up` starts, on the
 *    project's own ports, never a process found running there), started here when none of 1
 *    and 2 gave an address, where this machine can run them (Java and Maven for Kafka,
 *    `redis-server`); stopped at the end of the run, only those started here
 *    (`TEST_START_SERVICES=0` turns this off);
 * 4. a container, when a Docker engine answers (Kafka and Redis);
 * 5. for the Upstash REST endpoint only: our own proxy, in this process, in front of whichever
 *    Redis was found.
 *
 * The secure services (`secureKafka`, `secureRedis`, `secureRedisCluster`) are found by 1 and 2
 * only, from their `SECURE_*` variables (test/support/secure-discovery.ts).
 *
 * The browser of the explorer's tests is found apart: `CHROMIUM_PATH`, else `chromium` on
 * PATH, else (only with `TEST_INSTALL=1`, as root) Debian's `chromium` package installed.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readEnvFile } from '../../tools/services/env-file.ts';
import {
  probeKafka,
  probeRedis,
  probeRedisCluster,
  probeUpstashRest,
} from '../../tools/services/probes.ts';
import { startUpstashRest } from '../../tools/services/upstash-rest.ts';
import { downServices, stack, upStack } from '../../tools/services/stack.ts';
import { ensureDebianProgram } from '../../tools/services/debian-package.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { waitUntilReady } from '../../tools/services/wait.ts';
import { dockerAnswers, KAFKA_IMAGE, REDIS_IMAGE, startContainers } from './containers.ts';
import { SECURE_SERVICES } from './secure-discovery.ts';
import type { ServiceAddresses, ServiceName } from './services.ts';

/** What {@link discoverServices} found. */
export interface Discovery {
  readonly available: Partial<ServiceAddresses>;
  /** Why each missing service is missing. */
  readonly missing: Partial<Record<ServiceName, string>>;
  /** Where each available service came from, for the log. */
  readonly sources: Partial<Record<ServiceName, string>>;
  /** Stops whatever discovery started (containers, in-process proxy). */
  stop(): Promise<void>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Variables = Readonly<Record<string, string | undefined>>;

/** Finds (or starts) every service; never throws for a missing one, only records why. */
export async function discoverServices(environment: Variables = process.env): Promise<Discovery> {
  const available: Mutable<Partial<ServiceAddresses>> = {};
  const missing: Partial<Record<ServiceName, string>> = {};
  const sources: Partial<Record<ServiceName, string>> = {};
  const stops: (() => Promise<void>)[] = [];
  const found = <N extends ServiceName>(name: N, address: ServiceAddresses[N], source: string) => {
    Object.assign(available, { [name]: address });
    sources[name] = source;
    delete missing[name];
  };

  const fromFile = readEnvFile();
  const configured = async <N extends ServiceName>(
    name: N,
    read: (variables: Variables) => ServiceAddresses[N] | undefined,
    probe: (address: ServiceAddresses[N]) => Promise<void>,
    fallback: Variables,
  ) => {
    if (available[name] !== undefined) return;
    const explicit = read(environment);
    const address = explicit ?? read(fallback);
    const source = explicit === undefined ? '.services/env' : 'the environment';
    if (address === undefined) {
      missing[name] = 'not configured (no environment variable, no .services/env)';
      return;
    }
    try {
      // Explicit addresses get time to come up; a stale .services/env should not hold the run up.
      const timeoutMs = explicit === undefined ? 3_000 : 10_000;
      await waitUntilReady(() => probe(address), { timeoutMs, intervalMs: 500 });
      found(name, address, source);
    } catch (error) {
      missing[name] = `${JSON.stringify(address)} from ${source} does not answer: ${
        message(error)
      }`;
    }
  };
  const configureAll = (source: Variables) =>
    Promise.all([
      configured('kafka', kafkaFrom, (kafka) => probeKafka(kafka.brokers), source),
      configured('redis', redisFrom, (redis) => probeRedis(redis.url), source),
      configured(
        'upstash',
        upstashFrom,
        (upstash) => probeUpstashRest(upstash.url, upstash.token),
        source,
      ),
      configured(
        'redisCluster',
        clusterFrom,
        (cluster) => probeRedisCluster(cluster.nodes),
        source,
      ),
      configured(
        'secureKafka',
        SECURE_SERVICES.secureKafka.read,
        SECURE_SERVICES.secureKafka.probe,
        source,
      ),
      configured(
        'secureRedis',
        SECURE_SERVICES.secureRedis.read,
        SECURE_SERVICES.secureRedis.probe,
        source,
      ),
      configured(
        'secureRedisCluster',
        SECURE_SERVICES.secureRedisCluster.read,
        SECURE_SERVICES.secureRedisCluster.probe,
        source,
      ),
    ]);
  await Promise.all([configureAll(fromFile), findBrowser(environment, found, missing)]);

  // Nothing configured and nothing running: the project's own services, started here.
  const unconfigured = STACK_SERVICES.filter((name) =>
    available[name] === undefined && !configuredIn(environment, name)
  );
  if (unconfigured.length > 0 && mayStartServices(environment)) {
    const own = await startOwnServices();
    stops.push(own.stop);
    await configureAll(own.env);
    for (const name of unconfigured) {
      if (available[name] !== undefined) {
        sources[name] = 'started by the test setup: tools/services';
      } else {
        const why = own.failures.filter((line) => STARTED_AS[name].test(line));
        missing[name] = `the test setup could not start it: ${
          (why.length > 0 ? why : own.failures).join('; ') || 'no answer'
        }`;
      }
    }
  }

  // An address set in the environment is never silently replaced by a container.
  const containerNames = [
    ...(available.kafka === undefined && kafkaFrom(environment) === undefined
      ? ['kafka' as const]
      : []),
    ...(available.redis === undefined && redisFrom(environment) === undefined
      ? ['redis' as const]
      : []),
  ];
  if (containerNames.length > 0 && (await dockerAnswers())) {
    try {
      const started = await startContainers(containerNames);
      stops.push(() => started.stop());
      if (started.kafka !== undefined) found('kafka', started.kafka, `container ${KAFKA_IMAGE}`);
      if (started.redis !== undefined) found('redis', started.redis, `container ${REDIS_IMAGE}`);
    } catch (error) {
      for (const name of containerNames) {
        missing[name] = `a Docker engine answers, but starting the container failed: ${
          message(error)
        }`;
      }
    }
  }

  if (
    available.upstash === undefined && available.redis !== undefined &&
    upstashFrom(environment) === undefined
  ) {
    const token = randomBytes(16).toString('hex');
    const proxy = await startUpstashRest({ redisUrl: available.redis.url, token, port: 0 });
    stops.push(() => proxy.close());
    found(
      'upstash',
      { url: proxy.url, token },
      `tools/services/upstash-rest.ts in this process, in front of ${available.redis.url}`,
    );
  }

  return {
    available,
    missing,
    sources,
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}

/**
 * Whether Kafka, Redis, the REST endpoint and the Cluster all answer at addresses set in
 * `environment` or in .services/env, as {@link discoverServices} reads them: then several vitest
 * processes at once find the same services, and none of them starts any (test/support/run-tiers.ts).
 */
export async function stackAnswers(environment: Variables = process.env): Promise<boolean> {
  const fromFile = readEnvFile();
  const kafka = kafkaFrom(environment) ?? kafkaFrom(fromFile);
  const redis = redisFrom(environment) ?? redisFrom(fromFile);
  const upstash = upstashFrom(environment) ?? upstashFrom(fromFile);
  const cluster = clusterFrom(environment) ?? clusterFrom(fromFile);
  if (kafka === undefined || redis === undefined) return false;
  if (upstash === undefined || cluster === undefined) return false;
  try {
    await Promise.all([
      probeKafka(kafka.brokers),
      probeRedis(redis.url),
      probeUpstashRest(upstash.url, upstash.token),
      probeRedisCluster(cluster.nodes),
    ]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The names under which `tools/services` reports a failure to start each service (the REST
 * endpoint needs its Redis), as the beginning of the line.
 */
const STARTED_AS: Readonly<Record<(typeof STACK_SERVICES)[number], RegExp>> = {
  kafka: /^kafka:/,
  redis: /^redis:/,
  upstash: /^(upstash-rest|redis):/,
  redisCluster: /^redis-cluster/,
};

/** The services `tools/services` runs (the browser is not one of them). */
const STACK_SERVICES = ['kafka', 'redis', 'upstash', 'redisCluster'] as const;

function configuredIn(variables: Variables, name: (typeof STACK_SERVICES)[number]): boolean {
  switch (name) {
    case 'kafka':
      return kafkaFrom(variables) !== undefined;
    case 'redis':
      return redisFrom(variables) !== undefined;
    case 'upstash':
      return upstashFrom(variables) !== undefined;
    case 'redisCluster':
      return clusterFrom(variables) !== undefined;
  }
}

function mayStartServices(variables: Variables): boolean {
  return !['0', 'false', 'no'].includes((variables['TEST_START_SERVICES'] ?? '').toLowerCase());
}

/**
 * Starts the project's own stack (what is not running yet) and answers its client environment,
 * what failed, and how to stop exactly the processes started here.
 */
async function startOwnServices(): Promise<
  { env: Variables; failures: readonly string[]; stop: () => Promise<void> }
> {
  const services = stack();
  const failures: string[] = [];
  console.log("services: none configured or running; starting the project's own (tools/services)");
  const result = await upStack(services, {
    line: (text) => console.log(text),
    error: (text) => failures.push(text.split('\n')[0] ?? text),
  });
  const started = new Set(result.started);
  return {
    env: { ...result.env },
    failures,
    stop: () =>
      downServices(
        services.stopOrder.filter((service) => started.has(service)),
        (text) => console.log(text),
      ),
  };
}

/** Finds (or installs) the headless browser; records it as the `browser` service. */
async function findBrowser(
  environment: Variables,
  found: (name: 'browser', address: ServiceAddresses['browser'], source: string) => void,
  missing: Partial<Record<ServiceName, string>>,
): Promise<void> {
  const explicit = environment['CHROMIUM_PATH'];
  if (explicit !== undefined && explicit !== '') {
    found('browser', { executablePath: explicit }, 'CHROMIUM_PATH');
    return;
  }
  try {
    const executablePath = await ensureDebianProgram({
      binary: 'chromium',
      package: 'chromium',
      howTo: "Install Debian's chromium package (sudo apt-get install -y chromium) or set " +
        'CHROMIUM_PATH to a Chromium or Chrome executable.',
      logFile: `${serviceDir('chromium')}/install.log`,
    }, (text) => console.log(`browser: ${text}`));
    found('browser', { executablePath }, 'PATH');
  } catch (error) {
    missing.browser = message(error);
  }
}

function kafkaFrom(variables: Variables): ServiceAddresses['kafka'] | undefined {
  const brokers = variables['KAFKA_BROKERS']?.split(',').map((broker) => broker.trim()).filter((
    b,
  ) => b !== '');
  return brokers === undefined || brokers.length === 0 ? undefined : { brokers };
}

function redisFrom(variables: Variables): ServiceAddresses['redis'] | undefined {
  const url = variables['REDIS_URL'];
  return url === undefined || url === '' ? undefined : { url };
}

function clusterFrom(variables: Variables): ServiceAddresses['redisCluster'] | undefined {
  const nodes = variables['REDIS_CLUSTER_NODES']?.split(',').map((node) => node.trim())
    .filter((node) => node !== '');
  return nodes === undefined || nodes.length === 0 ? undefined : { nodes };
}

function upstashFrom(variables: Variables): ServiceAddresses['upstash'] | undefined {
  const url = variables['UPSTASH_REDIS_REST_URL'];
  const token = variables['UPSTASH_REDIS_REST_TOKEN'];
  return url === undefined || url === '' || token === undefined || token === ''
    ? undefined
    : { url, token };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
