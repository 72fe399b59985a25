import { RE2JS } from 're2js';
import { describe, expect, it, test } from 'vitest';
import {
  compileHostPattern,
  literalOf,
  MAX_PATTERN_LENGTH,
  MAX_PROGRAM_SIZE,
  parseApiCountsParams,
} from '../../../src/contract/params/api-counts.ts';

describe('parseApiCountsParams', () => {
  it.each([
    ['', 'missing_parameter', 'project'],
    ['interval=daily', 'missing_parameter', 'project'],
    ['project=&interval=daily', 'missing_parameter', 'project'],
    ['project=p', 'missing_parameter', 'interval'],
    ['project=p&interval=', 'missing_parameter', 'interval'],
    ['project=p&interval=weekly', 'invalid_parameter', 'interval'],
    ['project=p&interval=Daily', 'invalid_parameter', 'interval'],
    ['project=p&interval=1DAY', 'invalid_parameter', 'interval'],
    ['project=p&interval=5min', 'invalid_parameter', 'interval'],
    ['project=(p&interval=daily', 'invalid_parameter', 'project'],
  ])('%j -> %s %s', (query, code, parameter) => {
    const result = parseApiCountsParams(new URLSearchParams(query));
    expect(result.ok ? null : [result.error.code, result.error.parameter]).toEqual([
      code,
      parameter,
    ]);
  });

  it('lists all six intervals for an unknown one', () => {
    const result = parseApiCountsParams({ project: 'p', interval: 'weekly' });
    expect(result.ok ? '' : result.error.message).toBe(
      'invalid parameter "interval": expected one of minutely, hourly, daily, 1hr, 1day, 7day; got "weekly"',
    );
  });

  it.each(['minutely', 'hourly', 'daily', '1hr', '1day', '7day'])('accepts %s', (interval) => {
    const result = parseApiCountsParams({ project: 'abc', interval });
    expect(result.ok && [result.params.interval, result.params.project.source]).toEqual([
      interval,
      'abc',
    ]);
  });
});

describe('compileHostPattern', () => {
  it.each([
    ['abcdefghijklmnopqrst', 'abcdefghijklmnopqrst.supabase.co', true],
    ['abc', 'xxabcxx.supabase.co', true],
    ['supabase', 'abc.supabase.co', true],
    ['^abc\\.', 'abc.supabase.co', true],
    ['^abc$', 'abc.supabase.co', false],
    ['abc', 'ABC.supabase.co', false],
    ['(?i)abc', 'ABC.supabase.co', true],
    ['a.c', 'abc.x', true],
    ['(foo|bar)\\.supabase', 'bar.supabase.co', true],
    ['', 'anything', true],
    ['zzz', 'abc.supabase.co', false],
  ])('%j in %j: %s', (pattern, host, expected) => {
    const result = compileHostPattern(pattern);
    expect(result.ok && result.params.test(host)).toBe(expected);
  });

  it.each([
    ['(abc', 'missing closing )'],
    ['[z-a]', 'invalid character class range'],
    ['x**', 'invalid nested repetition operator'],
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=a)', 'invalid or unsupported Perl syntax'],
    ['a{1001}', 'invalid repeat count'],
  ])('refuses %j, quoting the RE2 error', (pattern, detail) => {
    const result = compileHostPattern(pattern);
    expect(result.ok ? null : result.error.code).toBe('invalid_parameter');
    expect(result.ok ? '' : result.error.message).toContain(detail);
  });

  it('accepts 256 characters and refuses 257, counting code points', () => {
    expect(compileHostPattern('a'.repeat(MAX_PATTERN_LENGTH)).ok).toBe(true);
    const long = compileHostPattern('a'.repeat(MAX_PATTERN_LENGTH + 1));
    expect(long.ok ? '' : long.error.message).toContain('this one has 257 characters');
    // 256 astral characters are 512 UTF-16 code units, still 256 characters.
    expect(compileHostPattern('😀'.repeat(MAX_PATTERN_LENGTH)).ok).toBe(true);
  });

  it('refuses a pattern whose program is over the limit, naming its size and what to do', () => {
    // Each instruction may be tried at every character of every host: 28,002 instructions cost
    // about 0.1 to 0.25 s per 1,024-character host, so one host's test would hold the event loop.
    const pattern = '\\pL{1000}'.repeat(28);
    const result = compileHostPattern(pattern);
    expect(result.ok ? null : result.error).toEqual({
      code: 'invalid_parameter',
      parameter: 'project',
      message: 'invalid parameter "project": expected an RE2 regular expression of at most 256 ' +
        'characters, found anywhere in the request host, e.g. project=abcdefghijklmnopqrst; this ' +
        `one compiles to 28002 RE2 instructions, over the limit of ${MAX_PROGRAM_SIZE}: use ` +
        `fewer or smaller counted repetitions ({n}); got ${
          JSON.stringify(`${pattern.slice(0, 100)}...`)
        }`,
    });
  });

  it('accepts a program at the limit', () => {
    const atLimit = `\\pL{${MAX_PROGRAM_SIZE - 2}}`;
    expect(RE2JS.compile(atLimit).programSize()).toBe(MAX_PROGRAM_SIZE);
    expect(compileHostPattern(atLimit).ok).toBe(true);
    expect(compileHostPattern(`\\pL{${MAX_PROGRAM_SIZE - 1}}`).ok).toBe(false);
  });

  it('matches in linear time a pattern that backtracks catastrophically elsewhere', () => {
    const result = compileHostPattern('(a+)+$');
    expect(result.ok && result.params.test(`${'a'.repeat(5_000)}!`)).toBe(false);
  });
});

describe('literal fast path', () => {
  test.each([
    ['abcdefghijklmnopqrst', 'abcdefghijklmnopqrst'],
    ['abc-def_1', 'abc-def_1'],
    ['abc.supabase.co', null],
    ['^abc', null],
    ['(a+)+$', null],
    ['a|b', null],
    ['[a-z]', null],
    ['a{2}', null],
    ['a\\d', null],
    ['', null],
  ])('literalOf(%j) is %j', (source, literal) => {
    expect(literalOf(source)).toBe(literal);
  });

  test.each(['abcdefghij', '^abc', 'abc.supabase'])(
    'a compiled %j answers as RE2 does, by substring search when literal',
    (source) => {
      const compiled = compileHostPattern(source);
      if (!compiled.ok) throw new Error(compiled.error.message);
      const re2 = RE2JS.compile(source);
      for (
        const host of [
          'abcdefghij.supabase.co',
          'x.abcdefghij',
          'abcdefghi.supabase.co',
          'abcXsupabase',
          '',
        ]
      ) {
        expect(compiled.params.test(host), host).toBe(re2.test(host));
      }
    },
  );
});
