import { describe, expect, it } from 'vitest';
import {
  ignoredQueryParameters,
  invalidParameter,
  missingParameter,
  readParam,
  requiredParam,
} from '../../../src/contract/params/common.ts';

describe('readParam', () => {
  it.each([
    [new URLSearchParams('a=1&a=2'), 'a', '2'],
    [new URLSearchParams('a='), 'a', ''],
    [new URLSearchParams('a'), 'a', ''],
    [new URLSearchParams('b=1'), 'a', null],
    [new URLSearchParams('a=x%2By+z'), 'a', 'x+y z'],
    [{ a: 'v' }, 'a', 'v'],
    [{ a: '' }, 'a', ''],
    [{ a: undefined }, 'a', null],
    [{}, 'a', null],
    [{}, 'toString', null],
    [{}, '__proto__', null],
  ])('%s %s -> %j', (source, name, expected) => {
    expect(readParam(source, name)).toBe(expected);
  });
});

describe('requiredParam', () => {
  it.each([{}, { project: '' }])('treats %j as missing', (source) => {
    expect(requiredParam(source, 'project', 'a project ref')).toEqual(
      missingParameter('project', 'a project ref'),
    );
  });
  it('returns a present value', () => {
    expect(requiredParam({ project: ' ' }, 'project', 'x')).toEqual({ ok: true, params: ' ' });
  });
});

describe('error messages', () => {
  it('name the parameter and the allowed values', () => {
    expect(missingParameter('interval', 'one of a, b').error).toEqual({
      code: 'missing_parameter',
      parameter: 'interval',
      message: 'missing required parameter "interval": one of a, b',
    });
    expect(invalidParameter('interval', 'one of a, b', 'c').error).toEqual({
      code: 'invalid_parameter',
      parameter: 'interval',
      message: 'invalid parameter "interval": expected one of a, b; got "c"',
    });
  });

  it('shorten a long given value', () => {
    const message = invalidParameter('p', 'x', 'y'.repeat(500)).error.message;
    expect(message).toBe(`invalid parameter "p": expected x; got "${'y'.repeat(100)}..."`);
  });
});

describe('ignoredQueryParameters', () => {
  it.each([
    ['sql=select+1', ['sql']],
    ['lql=error', ['lql']],
    ['sql=', ['sql']],
    ['lql', ['lql']],
    ['project=p&sql=x&lql=y', ['sql', 'lql']],
    ['project=p&sqlx=1', []],
  ])('%j ignores %j', (query, ignored) => {
    expect(ignoredQueryParameters(new URLSearchParams(query))).toEqual(ignored);
  });
});
