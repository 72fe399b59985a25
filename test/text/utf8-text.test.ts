/**
 * `strictUtf8` answers exactly what the strict decoder answers: the same text, or a TypeError,
 * for any bytes (random ones, and valid text with invalid bytes spliced in).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { strictUtf8 } from '../../src/text/utf8-text.ts';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The strict decoder's answer: its text, or the message of what it threw. */
function expected(bytes: Uint8Array): { text: string } | { error: string } {
  try {
    return { text: strict.decode(bytes) };
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return { error: error.message };
  }
}

function actual(bytes: Uint8Array): { text: string } | { error: string } {
  try {
    return { text: strictUtf8(bytes) };
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return { error: error.message };
  }
}

describe('strictUtf8', () => {
  it('agrees with the strict decoder on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(actual(bytes)).toEqual(expected(bytes));
      }),
      { numRuns: 5_000 },
    );
  });

  it('agrees on valid text (U+FFFD and a byte-order mark among it) with invalid bytes spliced in', () => {
    const encoder = new TextEncoder();
    const pieces = fc.oneof(
      fc.string({ unit: 'grapheme' }).map((text) => encoder.encode(text)),
      fc.constantFrom(
        encoder.encode('\uFFFD'),
        new Uint8Array([0xef, 0xbb, 0xbf]),
        new Uint8Array([0x80]),
        new Uint8Array([0xc0, 0xaf]),
        new Uint8Array([0xed, 0xa0, 0x80]),
        new Uint8Array([0xe2, 0x82]),
        new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
        const bytes = new Uint8Array(parts.flatMap((part) => [...part]));
        expect(actual(bytes)).toEqual(expected(bytes));
      }),
      { numRuns: 5_000 },
    );
  });
});
