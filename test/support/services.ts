/**
 * Real Kafka, Redis and Upstash-REST endpoints for test suites.
 *
 * The global setup (test/support/global-setup.ts) finds the services once per run: from the
 * environment (`KAFKA_BROKERS`, `REDIS_URL`, `REDIS_CLUSTER_NODES`, `UPSTASH_REDIS_REST_URL` +
 * `UPSTASH_REDIS_REST_TOKEN`), else from `.services/env` written by `npm run services:up` when
 * they answer, else from containers when a Docker engine answers. What it cannot find is
 * missing: the suites that need it are skipped (and listed in one banner at the end of the
 * run), or, with `REQUIRE_SERVICES=1`, the run fails.
 *
 * A suite declares what it needs:
 *
 * ```ts
 * import { describeWithServices } from './services.ts';
 *
 * describeWithServices(['kafka', 'redis'], 'consumer folds into redis', ({ kafka, redis }) => {
 *   test('…', async () => {
 *     const client = createClient({ url: redis.url });
 *     const broker = new Kafka({ brokers: [...kafka.brokers] });
 *   });
 * });
 * ```
 *
 * @module
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, inject, test, TestRunner } from 'vitest';
import type { ToolAddress, ToolName } from './tools.ts';

/** The services and tools a suite can ask for (test/support/tools.ts lists the tools). */
export type ServiceName = StackServiceName | ToolName;

/** The services proper: what runs and answers. */
export type StackServiceName =
  | 'kafka'
  | 'redis'
  | 'upstash'
  | 'redisCluster'
  | 'browser'
  | 'secureKafka'
  | 'secureRedis'
  | 'secureRedisCluster';

/** Every service name (tools aside), in the order they are reported. */
export const SERVICE_NAMES: readonly StackServiceName[] = [
  'kafka',
  'redis',
  'upstash',
  'redisCluster',
  'browser',
  'secureKafka',
  'secureRedis',
  'secureRedisCluster',
];

/**
 * A secure service (`npm run services:up -- --secure`): what a client of ours is given to reach
 * it, and the files a test of a refused connection needs.
 */
export interface SecureAddress {
  /** The variables of src/config.ts that reach it: address, TLS files, login (as files). */
  readonly settings: Readonly<Record<string, string>>;
  /** A CA that did not sign the service's certificate, and its key (an untrusted client). */
  readonly untrustedCaFile: string;
  readonly untrustedKeyFile: string;
  /** A client certificate of the CA that did, and its key (mutual TLS). */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

/** Where each service is reached, and where each tool was found. */
export interface ServiceAddresses extends Readonly<Record<ToolName, ToolAddress>> {
  /** Kafka bootstrap brokers, e.g. `['127.0.0.1:19092']`. */
  readonly kafka: { readonly brokers: readonly string[] };
  /** Redis over TCP (node-redis), e.g. `redis://127.0.0.1:16379`. */
  readonly redis: { readonly url: string };
  /** Upstash REST endpoint and token: `new Redis({ url, token })` from `@upstash/redis`. */
  readonly upstash: { readonly url: string; readonly token: string };
  /** A Redis Cluster: `host:port` of its nodes (node-redis `createCluster` root nodes). */
  readonly redisCluster: { readonly nodes: readonly string[] };
  /** A headless Chromium for the explorer's tests. */
  readonly browser: { readonly executablePath: string };
  /** A broker that takes only SASL_SSL (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN). */
  readonly secureKafka: SecureAddress & { readonly brokers: readonly string[] };
  /** A Redis that takes only TLS and only an ACL user. */
  readonly secureRedis: SecureAddress & { readonly url: string };
  /** A Redis Cluster whose nodes take only TLS and only an ACL user. */
  readonly secureRedisCluster: SecureAddress & { readonly nodes: readonly string[] };
}

/** What the global setup hands to every test file. */
export interface ProvidedServices {
  readonly available: Partial<ServiceAddresses>;
  /** Why each missing service is missing. */
  readonly missing: Partial<Record<ServiceName, string>>;
  /** File the workers append skipped suites to, for the banner at the end of the run. */
  readonly skipLog: string;
}

/** One line of the skip log. */
export interface SkippedSuite {
  readonly file: string;
  readonly suite: string;
  readonly missing: readonly ServiceName[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    services: ProvidedServices;
  }
}

/**
 * The services of this run (what the global setup found). Throws in a run without the global
 * setup (the `unit` tier): a file that needs a service belongs to the `services` or `faults`
 * tier, which test/support/tiers.ts decides from its imports.
 */
export function providedServices(): ProvidedServices {
  const provided = inject('services') as ProvidedServices | undefined;
  if (provided !== undefined) return provided;
  throw new Error(
    'no services in this run: test/support/global-setup.ts did not run. A file that needs ' +
      'services runs in the services or faults tier (vitest.config.ts, test/support/tiers.ts): ' +
      'run it with `npm run test:services` or `npx vitest run --project services <file>`',
  );
}

/**
 * A `describe` that runs when every service in `needs` is available, and is skipped (recorded
 * for the end-of-run banner) otherwise. `body` receives the addresses of exactly `needs`.
 *
 * @example
 * ```ts
 * describeWithServices(['redis'], 'redis store', ({ redis }) => {
 *   let client: ReturnType<typeof createClient>;
 *   beforeAll(async () => { client = await createClient({ url: redis.url }).connect(); });
 *   afterAll(() => client.close());
 *   test('round-trips', async () => { … });
 * });
 * ```
 */
export function describeWithServices<const N extends ServiceName>(
  needs: readonly N[],
  name: string,
  body: (services: Pick<ServiceAddresses, N>) => void,
): void {
  const { available, skipLog } = providedServices();
  const missing = needs.filter((service) => available[service] === undefined);
  if (missing.length === 0) {
    describe(name, () => body(available as Pick<ServiceAddresses, N>));
    return;
  }
  recordSkip(skipLog, name, missing);
  describe.skip(name, () => {
    test(`needs ${missing.join(', ')}: see the banner at the end of the run`, () => {});
  });
}

/** Kafka bootstrap brokers; throws when Kafka is not available (guard with describeWithServices). */
export function kafkaBrokers(): string[] {
  return [...addressOf('kafka').brokers];
}

/** Redis URL for node-redis; throws when Redis is not available. */
export function redisUrl(): string {
  return addressOf('redis').url;
}

/**
 * `url`, a Redis URL, on its database `database`: a suite that empties what it uses takes a
 * database of its own, and one that runs beside the services tier (a fault scenario) takes one no
 * services file empties.
 */
export function redisDatabaseUrl(url: string, database: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Upstash REST `{ url, token }`; throws when it is not available. */
export function upstashRest(): { url: string; token: string } {
  const { url, token } = addressOf('upstash');
  return { url, token };
}

function addressOf<N extends ServiceName>(service: N): ServiceAddresses[N] {
  const { available, missing } = providedServices();
  const address = available[service];
  if (address === undefined) {
    throw new Error(
      `${service} is not available in this run (${missing[service] ?? 'unknown reason'}); ` +
        `declare it with describeWithServices(['${service}'], …) so the suite is skipped instead`,
    );
  }
  return address as ServiceAddresses[N];
}

function recordSkip(skipLog: string, suite: string, missing: readonly ServiceName[]): void {
  if (skipLog === '') return;
  const path = TestRunner.getCurrentSuite().file?.filepath;
  const entry: SkippedSuite = {
    file: path === undefined ? '?' : relative(process.cwd(), path),
    suite,
    missing,
  };
  appendFileSync(skipLog, `${JSON.stringify(entry)}\n`);
}
