import { describe, expect, it } from 'vitest';
import { parseInvocationStatsParams } from '../../../src/contract/params/invocation-stats.ts';

describe('parseInvocationStatsParams', () => {
  it.each([
    ['', 'missing_parameter', 'project'],
    ['interval=1hr', 'missing_parameter', 'project'],
    ['project=&interval=1hr', 'missing_parameter', 'project'],
    ['sql=select+1', 'missing_parameter', 'project'],
  ])('%j -> %s %s', (query, code, parameter) => {
    const result = parseInvocationStatsParams(new URLSearchParams(query));
    expect(result.ok ? null : [result.error.code, result.error.parameter]).toEqual([
      code,
      parameter,
    ]);
  });

  it.each(['project=p', 'project=p&interval=', 'project=p&interval=1hr&interval='])(
    '%j: an absent or empty interval falls back to 1day, as a NULL parameter does',
    (query) => {
      const result = parseInvocationStatsParams(new URLSearchParams(query));
      expect(result.ok && result.params.interval).toBe('1day');
    },
  );

  it('ignores sql and lql (sandboxing is disabled)', () => {
    const result = parseInvocationStatsParams(
      new URLSearchParams('project=p&interval=1hr&sql=select+1&lql=x'),
    );
    expect(result).toEqual({
      ok: true,
      params: { project: 'p', functionId: null, interval: '1hr' },
    });
  });

  it.each([
    ['5min', '5min'],
    ['15min', '15min'],
    ['1hr', '1hr'],
    ['1day', '1day'],
    ['7day', '7day'],
    ['weekly', '1day'],
    ['1DAY', '1day'],
    ['5MIN', '1day'],
    ['toString', '1day'],
    ['__proto__', '1day'],
    [' 1hr', '1day'],
  ])('interval %j behaves as %s', (interval, expected) => {
    const result = parseInvocationStatsParams({ project: 'p', interval });
    expect(result.ok && result.params.interval).toBe(expected);
  });

  it.each([
    ['project=p&interval=1hr', null],
    ['project=p&interval=1hr&function_id=', null],
    ['project=p&interval=1hr&function_id=f-1', 'f-1'],
    ['project=p&interval=1hr&function_id=a&function_id=b', 'b'],
  ])('%j -> function %j', (query, functionId) => {
    const result = parseInvocationStatsParams(new URLSearchParams(query));
    expect(result).toEqual({ ok: true, params: { project: 'p', functionId, interval: '1hr' } });
  });

  it('ignores unknown parameters', () => {
    const result = parseInvocationStatsParams(new URLSearchParams('project=p&interval=5min&x=1'));
    expect(result.ok).toBe(true);
  });
});
