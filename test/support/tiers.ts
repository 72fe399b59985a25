/**
 * The three test tiers (vitest.config.ts's projects), decided from the files themselves:
 *
 * - `faults`: the scenarios that break something on purpose and wait for it to heal (processes
 *   killed or churned, failovers, stores stopped, paused or rolled back, a cluster's node unknown
 *   or slot without a master, the soak), listed in {@link FAULT_FILES}. Each runs on a Redis of
 *   its own (or a database of the shared one that no services file empties), so several run side
 *   by side, and beside the services tier (test/support/run-tiers.ts);
 * - `services`: every other file that needs a real service or tool: it imports, directly or
 *   through test helpers, `test/support/services.ts` (which gives out the services and skips or
 *   fails a suite whose service or tool is missing);
 * - `unit`: the rest. A unit file cannot reach a service: nothing gives it one (the tier has no
 *   global setup), and test/support/tiers.test.ts keeps the split true.
 *
 * @example
 * ```ts
 * const tiers = testTiers(process.cwd());
 * tiers.unit.includes('test/config.test.ts'); // true
 * ```
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** The fault scenarios, by path from the repository's root. */
export const FAULT_FILES: readonly string[] = [
  'test/consumers/churn.test.ts',
  'test/consumers/crash-cluster.test.ts',
  'test/consumers/crash-redis.test.ts',
  'test/consumers/failover-force.test.ts',
  'test/consumers/failover-kill.test.ts',
  'test/consumers/kafka-away-flush.test.ts',
  'test/consumers/log-start-services.test.ts',
  'test/consumers/retention-overrun.test.ts',
  'test/consumers/store-rollback.test.ts',
  'test/consumers/store-stopped.test.ts',
  'test/secure/redis-failover.test.ts',
  'test/service/mid-stream-faults.test.ts',
  'test/service/slow-redis.test.ts',
  'test/service/start-faults.test.ts',
  'test/service/store-refusals.test.ts',
  'test/store/cluster-ask-unknown-node.test.ts',
  'test/store/cluster-slot-without-master.test.ts',
  'test/tools/soak.test.ts',
];

/** The module every suite that needs a service or a tool reaches. */
const SERVICES_MODULE = 'test/support/services.ts';

/** The test files of each tier, by path from `root`, sorted. */
export interface TestTiers {
  readonly unit: readonly string[];
  readonly services: readonly string[];
  readonly faults: readonly string[];
}

/** Splits the test files under `root`/test (`*.test.ts`, test/image/ aside) into tiers. */
export function testTiers(root: string): TestTiers {
  const files = testFiles(root);
  const reaches = new Map<string, boolean>();
  const faults = files.filter((file) => FAULT_FILES.includes(file));
  const rest = files.filter((file) => !FAULT_FILES.includes(file));
  return {
    unit: rest.filter((file) => !reachesServices(root, file, reaches, new Set())),
    services: rest.filter((file) => reachesServices(root, file, reaches, new Set())),
    faults,
  };
}

/** Every `*.test.ts` under test/, but test/image/ (run by `npm run image:test`). */
function testFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path !== 'test/image') walk(path);
      } else if (entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  walk('test');
  return found.sort();
}

/** Whether `file` imports, directly or through modules under test/, the services module. */
function reachesServices(
  root: string,
  file: string,
  memo: Map<string, boolean>,
  visiting: Set<string>,
): boolean {
  if (file === SERVICES_MODULE) return true;
  const known = memo.get(file);
  if (known !== undefined) return known;
  if (visiting.has(file) || !file.startsWith('test/') || !existsSync(join(root, file))) {
    return false;
  }
  visiting.add(file);
  const reaches = relativeImports(root, file).some((imported) =>
    reachesServices(root, imported, memo, visiting)
  );
  memo.set(file, reaches);
  return reaches;
}

/** The relative modules `file` imports (static, bare and dynamic), by path from the root. */
function relativeImports(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  // Statements at the start of a line only: an import written inside a string (a test's
  // fixture) is not one.
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm),
    ...text.matchAll(/^\s*import\s+'(\.{1,2}\/[^']+)'/gm),
    ...text.matchAll(/^[^'"`\n]*\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/gm),
  ].map((match) => match[1] ?? '');
  return specifiers.map((specifier) =>
    relative(root, normalize(join(root, dirname(file), specifier))).split('\\').join('/')
  );
}
