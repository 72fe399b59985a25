/**
 * Every hostile-load measurement, one after the other, each against a fresh embedded API process
 * of the same checkout: a hostile ingest body (`hostile-ingest.ts`), idle connections and slow
 * readers (`hostile-connections.ts`), many tenants and host registry churn
 * (`hostile-tenants.ts`), and keys flooding costly patterns (`hostile-rate.ts`). Each script
 * prints its own method and figures; this one only runs them in turn, so that one command gives
 * a row for each attack (docs/benchmarks-history.md, "Hostile load over time, before and after
 * issue 31"; the method: BENCHMARKS.md, "Hostile load over time").
 *
 *   npm run bench:hostile                                    # this checkout
 *   npm run bench:hostile -- --entry OTHER/service/main.ts   # another checkout, to compare
 *   npm run bench:hostile -- --only connections,rate         # some of them
 *
 * Loopback only, each attack bounded in time and count; nothing asserts.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { helpFirst } from '../tool-args.ts';

helpFirst(import.meta.url);

/** The attacks, by the name `--only` takes, with their scripts. */
const ATTACKS = {
  ingest: 'tools/bench/hostile-ingest.ts',
  connections: 'tools/bench/hostile-connections.ts',
  tenants: 'tools/bench/hostile-tenants.ts',
  rate: 'tools/bench/hostile-rate.ts',
} as const;

type Attack = keyof typeof ATTACKS;

function isAttack(name: string): name is Attack {
  return Object.hasOwn(ATTACKS, name);
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const entry = option('--entry');
const only = option('--only')?.split(',') ?? Object.keys(ATTACKS);
const unknown = only.filter((name) => !isAttack(name));
if (unknown.length > 0) {
  console.error(
    `--only: ${unknown.join(', ')} is not an attack: use some of ${
      Object.keys(ATTACKS).join(', ')
    }`,
  );
  process.exit(2);
}

let failed = 0;
for (const name of only.filter(isAttack)) {
  console.log(`\n== ${name} (${ATTACKS[name]}${entry === undefined ? '' : `, --entry ${entry}`})`);
  const run = spawnSync(
    process.execPath,
    [
      '--disable-warning=TimeoutNegativeWarning',
      ATTACKS[name],
      ...(entry === undefined ? [] : ['--entry', entry]),
    ],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) {
    failed += 1;
    console.log(`${name}: the measurement stopped (exit ${run.status ?? run.signal})`);
  }
}
process.exit(failed === 0 ? 0 : 1);
