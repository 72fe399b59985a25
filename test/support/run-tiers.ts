/**
 * `npm test`'s run of the test tiers (vitest.config.ts): the unit tier, then the services and
 * faults tiers side by side, each a vitest process of its own.
 *
 * Vitest runs the projects of one group at once only with one worker count, and the two tiers
 * need two: the services tier's files run one at a time (they share the services and empty
 * them), the faults tier's three at a time (each on a Redis of its own). Alone, the services tier
 * leaves a core mostly idle, its files waiting on brokers, group joins and timers; side by side
 * the two took 667 s where one after the other took about 830 (docs/TESTING.md).
 *
 * Side by side only when Kafka, Redis, the REST endpoint and the Cluster all answer at configured
 * addresses (the environment or .services/env, `stackAnswers`): the two processes then find the
 * same services and neither starts any. Otherwise, and when arguments are given
 * (`npm test -- test/config.test.ts`), one `vitest run` runs the tiers one after the other.
 *
 * The services tier's output is printed as it comes, the faults tier's kept in a file and printed
 * once both have ended, so that neither interleaves the other. Each vitest process prints its own
 * summary (`Tests  N passed`), which .ci/run adds up. The exit code is the first failing tier's.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackAnswers } from './discovery.ts';

const VITEST = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'vitest');

/** Runs `vitest run ...args`, its output to this process's or to the file `log`; its exit code. */
function vitest(args: readonly string[], log?: string): Promise<number> {
  const output = log === undefined ? 'inherit' : openSync(log, 'w');
  const child = spawn(VITEST, ['run', ...args], { stdio: ['ignore', output, output] });
  if (typeof output === 'number') closeSync(output);
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`run-tiers: vitest did not start: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code) => {
      process.off('SIGTERM', forward);
      resolve(code ?? 1);
    });
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length > 0) return await vitest(args);
  if (!(await stackAnswers())) {
    console.log(
      'run-tiers: the services of `npm run services:up` do not all answer: the tiers run one ' +
        'after the other, in one vitest process',
    );
    return await vitest([]);
  }
  const unit = await vitest(['--project', 'unit']);
  const dir = mkdtempSync(join(tmpdir(), 'run-tiers-'));
  const faultsLog = join(dir, 'faults.log');
  console.log(
    'run-tiers: the services and faults tiers side by side; the faults tier prints once both ' +
      `have ended (its output meanwhile: ${faultsLog})`,
  );
  const [services, faults] = await Promise.all([
    vitest(['--project', 'services']),
    vitest(['--project', 'faults'], faultsLog),
  ]);
  process.stdout.write(readFileSync(faultsLog));
  rmSync(dir, { recursive: true, force: true });
  return [unit, services, faults].find((code) => code !== 0) ?? 0;
}

process.exitCode = await main();
