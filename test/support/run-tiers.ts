/**
 * `npm test`'s run of the test tiers (vitest.config.ts): the unit tier, then the services and
 * faults tiers side by side, each a vitest process of its own.
 *
 * Vitest runs the projects of one group at once only with one worker count, and the two tiers
 * need two: the services tier's files run one at a time (they share the services and empty
 * them), the faults tier's three at a time (each on a Redis of its own). Alone, the services tier
 * kept 75% of one core busy (its own processes), its files waiting on brokers, group joins and
 * timers: docs/TESTING.md has the figures side by side and in turn.
 *
 * Side by side only when Kafka, Redis, the REST endpoint and the Cluster all answer at configured
 * addresses (the environment or .services/env, `stackAnswers`): the two processes then find the
 * same services and neither starts any. Otherwise, and when arguments are given
 * (`npm test -- test/config.test.ts`), one `vitest run` runs the tiers one after the other.
 *
 * The services tier's output is printed as it comes, the faults tier's kept in a file and printed
 * once both have ended (or the run is stopped), so that neither interleaves the other; a last line
 * gives each tier's exit code. Each vitest process prints its own summary (`Tests  N passed`),
 * which .ci/run adds up. The exit code is the first failing tier's. On SIGTERM or SIGINT no
 * further tier starts: SIGTERM is passed on to the running ones (SIGINT reaches them from the
 * terminal already; vitest takes a second one as a kill without clean-up).
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { stackAnswers } from './discovery.ts';

const VITEST = join(import.meta.dirname, '..', '..', 'node_modules', 'vitest', 'vitest.mjs');

/** The vitest processes running, and the signal that stopped the run, if one did. */
const running = new Set<ChildProcess>();
let stoppedBy: NodeJS.Signals | null = null;
process.on('SIGTERM', () => {
  stoppedBy = 'SIGTERM';
  for (const child of running) child.kill('SIGTERM');
});
process.on('SIGINT', () => {
  stoppedBy = 'SIGINT';
});

/** The exit code of a process that ended on `signal`, as a shell gives it. */
function signalled(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

/**
 * Runs `vitest run ...args` on this Node, its output to this process's or to the file `log`; its
 * exit code. Starts none once the run was stopped, and answers the signal's exit code.
 */
function vitest(args: readonly string[], log?: string): Promise<number> {
  if (stoppedBy !== null) return Promise.resolve(signalled(stoppedBy));
  const output = log === undefined ? 'inherit' : openSync(log, 'w');
  const child = spawn(process.execPath, [VITEST, 'run', ...args], {
    stdio: ['ignore', output, output],
  });
  if (typeof output === 'number') closeSync(output);
  running.add(child);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      running.delete(child);
      console.error(`run-tiers: vitest did not start: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal === null ? 1 : signalled(signal)));
    });
  });
}

/** The services and faults tiers side by side; their exit codes. */
async function sideBySide(): Promise<{ services: number; faults: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'run-tiers-'));
  const faultsLog = join(dir, 'faults.log');
  console.log(
    'run-tiers: the services and faults tiers side by side; the faults tier prints once both ' +
      `have ended (its output meanwhile: ${faultsLog})`,
  );
  try {
    const [services, faults] = await Promise.all([
      vitest(['--project', 'services']),
      vitest(['--project', 'faults'], faultsLog),
    ]);
    return { services, faults };
  } finally {
    // None when the run was stopped before the faults tier started.
    if (existsSync(faultsLog)) {
      await pipeline(createReadStream(faultsLog), process.stdout, { end: false });
    }
    rmSync(dir, { recursive: true, force: true });
  }
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
  if (stoppedBy !== null) return signalled(stoppedBy);
  const { services, faults } = await sideBySide();
  console.log(`run-tiers: exit codes: unit ${unit}, services ${services}, faults ${faults}`);
  return [unit, services, faults].find((code) => code !== 0) ?? 0;
}

process.exitCode = await main();
