/**
 * .ci/run's `counts`: the `N passed, N failed` CI ends with comes from every vitest summary in a
 * log, as `npm test` runs its tiers as several vitest processes (test/support/run-tiers.ts), each
 * printing its own. And its `failures`: what CI's last lines say of each failed test. Each
 * function is taken from .ci/run itself and run by bash, under .ci/run's `set -euo pipefail`, on
 * sample logs.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The text of .ci/run's function `name() { … }`, from its first line to the closing brace. */
function shellFunction(name: string): string {
  const lines = readFileSync(join(ROOT, '.ci/run'), 'utf8').split('\n');
  const start = lines.indexOf(`${name}() {`);
  const end = lines.indexOf('}', start);
  if (start < 0 || end < 0) throw new Error(`.ci/run has no ${name}() function`);
  return lines.slice(start, end + 1).join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'ci-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let logs = 0;
/** What .ci/run's function `name` prints for a log holding `text` and further `args`. */
function run(name: string, text: string, ...args: string[]): string {
  const log = join(dir, `log-${logs++}`);
  writeFileSync(log, text);
  const ran = spawnSync('bash', [
    '-c',
    // Under .ci/run's own options: a pipeline whose grep finds nothing must not end the run.
    `set -euo pipefail\n${shellFunction(name)}\n${name} "$@"`,
    name,
    log,
    ...args,
  ], {
    encoding: 'utf8',
  });
  expect(ran.stderr).toBe('');
  expect(ran.status).toBe(0);
  return ran.stdout.trim();
}

describe('.ci/run counts', () => {
  /** `counts` of a log holding `text`, for a run that exited with `exitCode`. */
  const counts = (text: string, exitCode: number): string => run('counts', text, `${exitCode}`);

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

describe('.ci/run failures', () => {
  const failures = (text: string): string => run('failures', text);
  /** What vitest 4 prints of two failed tests and an unhandled rejection, colours and all. */
  const log = [
    '   ✓ an Unhandled Rejection in a test name opens nothing 3ms',
    ' \u001b[31m❯\u001b[39m services test/a.test.ts (2 tests | 2 failed) 40ms',
    '   × kafka fails',
    '\u001b[31m⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯\u001b[39m',
    '',
    '\u001b[41m\u001b[1m FAIL \u001b[22m\u001b[49m  services  test/a.test.ts > kafka fails',
    '\u001b[31mKafkaJSNumberOfRetriesExceeded: This server does not host this topic-partition',
    '\u001b[36m \u001b[2m❯\u001b[22m test/a.test.ts:\u001b[2m4:9\u001b[22m\u001b[39m',
    '      4|   throw new KafkaJSNumberOfRetriesExceeded(…',
    '',
    'Caused by: KafkaJSProtocolError: This server does not host this topic-partition',
    ' ❯ node_modules/kafkajs/src/protocol/error.js:581:10',
    '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯',
    '',
    ' FAIL   services  test/a.test.ts > assert fails',
    "AssertionError: expected [ 'a', 'b' ] to deeply equal [ 'a' ]",
    '',
    '- Expected',
    '+ Received',
    '',
    '  [',
    '    "a",',
    '+   "b",',
    '  ]',
    '',
    ' ❯ test/a.test.ts:7:27',
    "      7|   expect(['a', 'b']).toEqual(['a']);",
    '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[2/2]⎯',
    '⎯⎯⎯⎯⎯⎯ Unhandled Rejection ⎯⎯⎯⎯⎯⎯',
    'Error: socket closed',
    ' ❯ Socket.onClose src/store/x.ts:1:1',
    '',
    '      Tests  2 failed (2)',
  ].join('\n');

  test('each failed test with its message, expected and received, and its causes', () => {
    // (The output's leading blanks are trimmed.)
    expect(failures(log).split('\n')).toEqual([
      'FAIL   services  test/a.test.ts > kafka fails',
      'KafkaJSNumberOfRetriesExceeded: This server does not host this topic-partition',
      'Caused by: KafkaJSProtocolError: This server does not host this topic-partition',
      ' FAIL   services  test/a.test.ts > assert fails',
      "AssertionError: expected [ 'a', 'b' ] to deeply equal [ 'a' ]",
      '- Expected',
      '+ Received',
      '  [',
      '    "a",',
      '+   "b",',
      '  ]',
      '⎯⎯⎯⎯⎯⎯ Unhandled Rejection ⎯⎯⎯⎯⎯⎯',
      'Error: socket closed',
    ]);
  });

  test('at most 20 lines of one error, and nothing of a log without failures', () => {
    const long = [
      ' FAIL  test/b.test.ts > long',
      ...Array.from({ length: 30 }, (_, i) => `+ ${i}`),
    ];
    expect(failures(long.join('\n')).split('\n')).toHaveLength(21);
    expect(failures('      Tests  3 passed (3)\n')).toBe('');
  });
});
