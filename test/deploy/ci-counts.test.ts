/**
 * .ci/run's `counts`: the `N passed, N failed` CI ends with comes from every vitest summary in a
 * log, as `npm test` runs its tiers as several vitest processes (test/support/run-tiers.ts), each
 * printing its own. The function is taken from .ci/run itself and run by bash, under .ci/run's
 * `set -euo pipefail`, on sample logs.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The text of .ci/run's `counts() { … }`, from its first line to the closing brace. */
function countsFunction(): string {
  const lines = readFileSync(join(ROOT, '.ci/run'), 'utf8').split('\n');
  const start = lines.indexOf('counts() {');
  const end = lines.indexOf('}', start);
  if (start < 0 || end < 0) throw new Error('.ci/run has no counts() function');
  return lines.slice(start, end + 1).join('\n');
}

describe('.ci/run counts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ci-counts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let logs = 0;
  /** `counts` of a log holding `text`, for a run that exited with `exitCode`. */
  const counts = (text: string, exitCode: number): string => {
    const log = join(dir, `log-${logs++}`);
    writeFileSync(log, text);
    const run = spawnSync('bash', [
      '-c',
      // Under .ci/run's own options: a pipeline whose grep finds nothing must not end the run.
      `set -euo pipefail\n${countsFunction()}\ncounts "$1" "$2"`,
      'counts',
      log,
      `${exitCode}`,
    ], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return run.stdout.trim();
  };

  test('adds up the summaries of every vitest process, colours and all', () => {
    const log = [
      ' Test Files  154 passed (154)',
      '      Tests  1974 passed (1974)',
      ' ✓  services  test/smoke/redis.test.ts (3 tests) 28ms',
      '\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m2 failed\u001b[39m\u001b[22m\u001b[2m | ' +
      '\u001b[22m\u001b[1m\u001b[32m321 passed\u001b[39m\u001b[22m (323)',
      ' Test Files  17 passed (17)',
      '      Tests  27 passed (27)',
    ].join('\n');
    expect(counts(log, 1)).toBe('2322 2');
  });

  test('one summary is counted once', () => {
    expect(counts('      Tests  11 passed (11)\n', 0)).toBe('11 0');
  });

  test('a run that failed without a failed test counts one failure', () => {
    expect(counts('      Tests  11 passed (11)\nUnhandled Rejection\n', 1)).toBe('11 1');
  });

  test('no summary: nothing passed, and a failure unless the run exited with 0', () => {
    expect(counts('error TS2322: nope\n', 2)).toBe('0 1');
    expect(counts('', 0)).toBe('0 0');
  });
});
