/**
 * `queryParams` (api/answer/query-params.ts) reads what `new URL(url).searchParams` reads, without
 * parsing the rest of the URL, on request URLs as the runtimes hand them: a URL's own
 * serialization (Deno, and Node for any target with an escape, a space or a character beyond
 * ASCII), or the raw target when it has only plain characters (`@hono/node-server`'s fast path).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { queryParams } from '../../../api/answer/query-params.ts';

/** Text with what a query can hold that matters: separators, escapes, fragments, non-ASCII. */
const queryText = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    '0',
    '=',
    '&',
    '+',
    '%',
    '%2',
    '%20',
    '%zz',
    '%C3%A9',
    '?',
    '#',
    ' ',
    '/',
    '"',
    '<',
    ';',
    'é',
    '日',
    '\u{1F600}',
    '\\',
  ),
  maxLength: 40,
});

function entries(params: URLSearchParams): [string, string][] {
  return [...params.entries()];
}

describe('queryParams', () => {
  test('reads the parameters new URL(url).searchParams reads', () => {
    fc.assert(
      fc.property(queryText, fc.constantFrom('', '/p', '/api/endpoints/x'), (query, path) => {
        const raw = `http://h${path}?${query}`;
        const urls = [new URL(raw).href];
        // The raw targets `@hono/node-server` hands on as they are (its `reValidRequestUrl`).
        if (/^[!#$&-;=?-\[\]_a-z~]*$/.test(`${path}?${query}`)) urls.push(raw);
        for (const url of urls) {
          expect(entries(queryParams(url)), url).toEqual(entries(new URL(url).searchParams));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  test('a URL without a query has no parameters; a fragment is not one', () => {
    expect(entries(queryParams('http://h/p'))).toEqual([]);
    expect(entries(queryParams('http://h/p#a=1'))).toEqual([]);
    expect(entries(queryParams('http://h/p?a=1#b=2&c'))).toEqual([['a', '1']]);
    expect(entries(queryParams('http://h/p?a=1&a=2&b=%20+x'))).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', '  x'],
    ]);
  });
});
