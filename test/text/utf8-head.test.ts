import fc from 'fast-check';
import { expect, test } from 'vitest';
import { utf8Head } from '../../src/text/utf8-head.ts';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The head as Redis's `string.sub` gives it, decoded: the plain way, always right. */
const reference = (text: string, bytes: number) =>
  fromUtf8.decode(utf8.encode(text).subarray(0, bytes));

test('a head is the first bytes of the UTF-8, a character cut in two ending in U+FFFD', () => {
  expect(utf8Head('{"n":12345,"rest"}', 6)).toBe('{"n":1');
  expect(utf8Head('aé€x', 4)).toBe('aé\uFFFD');
  expect(utf8Head('aé€x', 6)).toBe('aé€');
  // ASCII up to the cut, more after it: the cut is where the bytes say.
  expect(utf8Head('abcd€', 4)).toBe('abcd');
  expect(utf8Head('abc€', 4)).toBe('abc\uFFFD');
  expect(utf8Head('short', 100)).toBe('short');
  expect(utf8Head('', 3)).toBe('');
});

test('any text, any head: as encoding the whole text and cutting its bytes', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' })),
      fc.nat(40),
      (text, bytes) => {
        expect(utf8Head(text, bytes)).toBe(reference(text, bytes));
      },
    ),
    { numRuns: 2_000 },
  );
});
