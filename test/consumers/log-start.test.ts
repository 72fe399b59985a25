/**
 * `LogStart`: a partition that starts at its log start with nothing stored is said once; counted
 * as lost only where this process knew a stored offset the store no longer holds (offsets from
 * where the stream began in this process, or 0, to the log start).
 */
import { describe, expect, test } from 'vitest';
import { LogStart, type LogStartReport } from '../../consumers/log-start.ts';

/** Each start `[logStart, knownStored]` in turn, and what was reported. */
function reports(
  starts: readonly [number, number | null][],
): Omit<LogStartReport, 'stream' | 'topic' | 'partition'>[] {
  const said: LogStartReport[] = [];
  const start = new LogStart({ topic: 'logs.edge', partition: 3, onStart: (r) => said.push(r) });
  for (const [logStart, knownStored] of starts) start.started(logStart, knownStored);
  return said.map(({ stream: _s, topic: _t, partition: _p, ...rest }) => rest);
}

describe('LogStart', () => {
  test.each<[string, [number, number | null][], ReturnType<typeof reports>]>([
    ['a new partition from offset 0: nothing to say', [[0, null]], []],
    ['a new group on a topic whose first 40 offsets expired: said, not counted', [[40, null]], [
      { logStart: 40, knownStored: null, lost: 0, lostFrom: 0 },
    ]],
    [
      'the same start again (a reopen before the first flush): said once',
      [[40, null], [40, null]],
      [
        { logStart: 40, knownStored: null, lost: 0, lostFrom: 0 },
      ],
    ],
    ['began at 40, the store lost it at 90 with the log start at 70: 30 lost', [[40, null], [
      70,
      90,
    ]], [
      { logStart: 40, knownStored: null, lost: 0, lostFrom: 0 },
      { logStart: 70, knownStored: 90, lost: 30, lostFrom: 40 },
    ]],
    ['began from a stored offset elsewhere: counted from 0', [[70, 90]], [
      { logStart: 70, knownStored: 90, lost: 70, lostFrom: 0 },
    ]],
    ['the store lost it while the log start is 0: everything is folded again', [[0, 90]], []],
    ['lost twice: the second counts from the first restart', [[0, null], [70, 90], [100, 120], [
      100,
      null,
    ]], [
      { logStart: 70, knownStored: 90, lost: 70, lostFrom: 0 },
      { logStart: 100, knownStored: 120, lost: 30, lostFrom: 70 },
    ]],
  ])('%s', (_name, starts, expected) => {
    expect(reports(starts)).toEqual(expected);
  });
});
