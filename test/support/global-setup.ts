/**
 * Vitest global setup: finds the real services once per run (test/support/discovery.ts) and
 * hands their addresses to every test file (`inject('services')`, read through
 * test/support/services.ts).
 *
 * It also looks up the programs some suites run themselves (test/support/tools.ts).
 *
 * - With `REQUIRE_SERVICES=1` (CI), a missing service or tool fails the run before any test
 *   starts.
 * - Otherwise suites needing a missing service or tool are skipped, and one banner at the end of
 *   the run lists what is missing with how to get it, and the skipped suites.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { discoverServices } from './discovery.ts';
import {
  type ProvidedServices,
  SERVICE_NAMES,
  type SkippedSuite,
  type StackServiceName,
} from './services.ts';
import { findTools, TOOL_NAMES } from './tools.ts';

const HOW_TO_START = [
  'Start them with:  npm run services:up   (Kafka, Redis, a Redis Cluster and the Upstash REST',
  '                  endpoint on loopback; with -- --secure also the secureKafka, secureRedis',
  '                  and secureRedisCluster services: TLS, SASL and ACL users;',
  '                  the tests find them through .services/env)',
  'or point the tests at your own: KAFKA_BROKERS, REDIS_URL, REDIS_CLUSTER_NODES,',
  '                  UPSTASH_REDIS_REST_URL + UPSTASH_REDIS_REST_TOKEN (the tests empty them:',
  '                  never point them at data you want to keep)',
  'or run with a Docker engine available (testcontainers starts Kafka and Redis).',
  'By default the test setup starts them itself (TEST_START_SERVICES=0 turns that off) where',
  '                  Java, Maven and redis-server are present, on its own ports.',
  "The browser: Debian's chromium package, or CHROMIUM_PATH=<a Chromium executable>.",
];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The services and faults tiers are two projects with this one setup: in one vitest process
  // (`npx vitest run`) they share one run of it (vitest runs both setups in this process, each
  // with its own copy of this module); `npm test` runs them as two processes, one run each.
  const shared = sharedRun();
  shared.users += 1;
  const run = await shared.run;
  project.provide('services', run.provided);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete (globalThis as SharedSlot)[SHARED];
    await run.finish();
  };
}

/** What one run of the setup found, and how to end it. */
interface SetupRun {
  readonly provided: ProvidedServices;
  finish(): Promise<void>;
}

const SHARED = Symbol.for('streaming-endpoints/test-services');
type SharedSlot = { [SHARED]?: { run: Promise<SetupRun>; users: number } };

function sharedRun(): { run: Promise<SetupRun>; users: number } {
  const slot = globalThis as SharedSlot;
  slot[SHARED] ??= { run: startRun(), users: 0 };
  return slot[SHARED];
}

async function startRun(): Promise<SetupRun> {
  // `vitest list` collects test names and runs nothing: it needs no service.
  if (process.argv.slice(2).includes('list')) return listing();
  const [discovery, tools] = [await discoverServices(), findTools(process.env)];
  const missingServices = SERVICE_NAMES.filter((name) => discovery.available[name] === undefined);
  const missingTools = TOOL_NAMES.filter((name) => tools.available[name] === undefined);
  const missingLines = [
    ...missingServices.map((name) =>
      `  ${name.padEnd(18)} ${discovery.missing[name] ?? 'unknown reason'}`
    ),
    ...missingTools.map((name) =>
      `  ${name.padEnd(18)} ${tools.missing[name] ?? 'unknown reason'}`
    ),
  ];

  if (missingLines.length > 0 && requireServices()) {
    await discovery.stop();
    throw new Error(
      [
        `REQUIRE_SERVICES is set and ${missingLines.length} service(s) or tool(s) are missing:`,
        ...missingLines,
        ...HOW_TO_START,
      ].join('\n'),
    );
  }

  for (const name of SERVICE_NAMES) {
    const address = discovery.available[name];
    if (address !== undefined) {
      console.log(`services: ${name} at ${where(name, address)} (${discovery.sources[name]})`);
    }
  }

  const dir = mkdtempSync(join(tmpdir(), 'vitest-services-'));
  const skipLog = join(dir, 'skipped.jsonl');
  writeFileSync(skipLog, '');
  return {
    provided: {
      available: { ...tools.available, ...discovery.available },
      missing: { ...tools.missing, ...discovery.missing },
      skipLog,
    },
    async finish() {
      const skipped = readFileSync(skipLog, 'utf8').split('\n').filter((line) => line !== '')
        .map((line) => JSON.parse(line) as SkippedSuite);
      rmSync(dir, { recursive: true, force: true });
      await discovery.stop();
      if (skipped.length > 0) console.log(banner(missingLines, skipped));
    },
  };
}

/** The run of `vitest list`: nothing found, nothing started, no banner. */
function listing(): SetupRun {
  const reason = '`vitest list` runs no test';
  return {
    provided: {
      available: {},
      missing: Object.fromEntries(SERVICE_NAMES.map((name) => [name, reason])),
      skipLog: '',
    },
    finish: () => Promise.resolve(),
  };
}

function requireServices(): boolean {
  return ['1', 'true', 'yes'].includes((process.env['REQUIRE_SERVICES'] ?? '').toLowerCase());
}

function where(name: StackServiceName, address: unknown): string {
  if (name === 'upstash') return (address as { url: string }).url; // never print the token
  if (name === 'kafka') return (address as { brokers: string[] }).brokers.join(',');
  if (name === 'redisCluster') return (address as { nodes: string[] }).nodes.join(',');
  if (name === 'browser') return (address as { executablePath: string }).executablePath;
  if (name === 'secureKafka') return (address as { brokers: string[] }).brokers.join(',');
  if (name === 'secureRedisCluster') return (address as { nodes: string[] }).nodes.join(',');
  return (address as { url: string }).url;
}

function banner(missingLines: readonly string[], skipped: readonly SkippedSuite[]): string {
  const rule = '!'.repeat(100);
  return [
    '',
    rule,
    `!!! ${skipped.length} SUITE(S) SKIPPED: services or tools are missing. These tests did NOT run.`,
    rule,
    'Missing services and tools (each with how to get it):',
    ...missingLines,
    'Skipped suites:',
    ...skipped.map((entry) =>
      `  ${entry.file} > ${entry.suite}   (needs ${entry.missing.join(', ')})`
    ),
    '',
    ...HOW_TO_START,
    'CI sets REQUIRE_SERVICES=1, which turns a missing service or tool into a failure instead of',
    'a skip. Nothing is installed by a test run unless TEST_INSTALL=1 (apt-get, as root).',
    rule,
    '',
  ].join('\n');
}
