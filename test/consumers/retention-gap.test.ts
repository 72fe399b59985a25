/**
 * A batch that starts after the offset the store resumes from: sought back once, then folded,
 * with what lies below the partition's log start reported once (issue 35, item 5).
 */
import { describe, expect, test } from 'vitest';
import { type OverrunReport, RetentionGap } from '../../consumers/retention-gap.ts';

function gap(logStart: number) {
  const reports: OverrunReport[] = [];
  const passedOver: number[] = [];
  const judge = new RetentionGap({
    topic: 'logs.edge',
    partition: 3,
    earliestOffset: () => Promise.resolve(logStart),
    onOverrun: (report) => reports.push(report),
    passOver: (to) => {
      passedOver.push(to);
      return Promise.resolve();
    },
  });
  return { judge, reports, passedOver };
}

describe('RetentionGap', () => {
  test('a batch that starts where the store resumes, or before, is folded', async () => {
    const { judge, reports } = gap(500);
    expect(await judge.judge(100, 100)).toBe('fold');
    expect(await judge.judge(100, 40)).toBe('fold');
    expect(reports).toEqual([]);
  });

  test('a gap is sought back once, then folded and its deleted offsets reported', async () => {
    const { judge, reports } = gap(500);
    expect(await judge.judge(100, 500)).toBe('seek');
    expect(await judge.judge(100, 500)).toBe('fold');
    expect(reports).toEqual([
      {
        stream: 'logs.edge/3',
        topic: 'logs.edge',
        partition: 3,
        stored: 100,
        logStart: 500,
        lost: 400,
      },
    ]);
  });

  test('a gap above the log start (a transaction marker) loses nothing', async () => {
    const { judge, reports, passedOver } = gap(0);
    expect(await judge.judge(100, 102)).toBe('seek');
    expect(await judge.judge(100, 102)).toBe('fold');
    expect(reports).toEqual([]);
    expect(passedOver).toEqual([]);
  });

  test('the deleted offsets are passed over once reported: the store resumes at the log start', async () => {
    const { judge, reports, passedOver } = gap(500);
    await judge.judge(100, 500);
    expect(passedOver).toEqual([]);
    await judge.judge(100, 500);
    expect(reports.map((report) => report.lost)).toEqual([400]);
    expect(passedOver).toEqual([500]);
  });

  test('only what the batch skips counts: a log start past the batch is not', async () => {
    const { judge, reports } = gap(700);
    expect(await judge.judge(100, 500)).toBe('seek');
    expect(await judge.judge(100, 500)).toBe('fold');
    expect(reports.map((report) => report.lost)).toEqual([400]);
  });

  test('the same gap met again (after a failed flush) is not counted twice', async () => {
    const { judge, reports } = gap(500);
    await judge.judge(100, 500);
    await judge.judge(100, 500);
    judge.forget();
    expect(await judge.judge(100, 500)).toBe('seek');
    expect(await judge.judge(100, 500)).toBe('fold');
    expect(reports.map((report) => report.lost)).toEqual([400]);
  });
});
