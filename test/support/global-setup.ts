/**
 * Vitest global setup: finds the real services once per run (test/support/discovery.ts) and
 * hands their addresses to every test file (`inject('services')`, read through
 * test/support/services.ts).
 *
 * - With `REQUIRE_SERVICES=1` (CI), a missing service fails the run before any test starts.
 * - Otherwise suites needing a missing service are skipped, and one banner at the end of the
 *   run lists the missing services, the skipped suites and how to start the services.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { discoverServices } from './discovery.ts';
import { SERVICE_NAMES, type ServiceName, type SkippedSuite } from './services.ts';

const HOW_TO_START = [
  'Start them with:  npm run services:up   (Kafka, Redis, a Redis Cluster and the Upstash REST',
  '                  endpoint on loopback; with -- --secure also the secureKafka, secureRedis',
  '                  and secureRedisCluster services: TLS, SASL and ACL users;',
  '                  the tests find them through .services/env)',
  'or point the tests at your own: KAFKA_BROKERS, REDIS_URL, REDIS_CLUSTER_NODES,',
  '                  UPSTASH_REDIS_REST_URL + UPSTASH_REDIS_REST_TOKEN',
  'or run with a Docker engine available (testcontainers starts Kafka and Redis).',
  'By default the test setup starts them itself (TEST_START_SERVICES=0 turns that off) where',
  '                  Java, Maven and redis-server (or apt-get as root) are present.',
  "The browser: Debian's chromium package, or CHROMIUM_PATH=<a Chromium executable>.",
];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const discovery = await discoverServices();
  const missing = SERVICE_NAMES.filter((name) => discovery.available[name] === undefined);
  const missingLines = missing.map((name) =>
    `  ${name.padEnd(12)} ${discovery.missing[name] ?? 'unknown reason'}`
  );

  if (missing.length > 0 && requireServices()) {
    await discovery.stop();
    throw new Error(
      [
        `REQUIRE_SERVICES is set and ${missing.length} service(s) are missing:`,
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
  project.provide('services', {
    available: discovery.available,
    missing: discovery.missing,
    skipLog,
  });

  return async () => {
    const skipped = readFileSync(skipLog, 'utf8').split('\n').filter((line) => line !== '')
      .map((line) => JSON.parse(line) as SkippedSuite);
    rmSync(dir, { recursive: true, force: true });
    await discovery.stop();
    if (skipped.length > 0) console.log(banner(missingLines, skipped));
  };
}

function requireServices(): boolean {
  return ['1', 'true', 'yes'].includes((process.env['REQUIRE_SERVICES'] ?? '').toLowerCase());
}

function where(name: ServiceName, address: unknown): string {
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
    `!!! ${skipped.length} SUITE(S) SKIPPED: real services are missing. These tests did NOT run.`,
    rule,
    'Missing services:',
    ...missingLines,
    'Skipped suites:',
    ...skipped.map((entry) =>
      `  ${entry.file} > ${entry.suite}   (needs ${entry.missing.join(', ')})`
    ),
    '',
    ...HOW_TO_START,
    'CI sets REQUIRE_SERVICES=1, which turns a missing service into a failure instead of a skip.',
    rule,
    '',
  ].join('\n');
}
