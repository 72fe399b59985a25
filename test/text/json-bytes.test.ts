/**
 * JSON written as bytes is byte for byte what `JSON.stringify` writes: any number (non-finite
 * ones, -0, extremes, integers past the safe ones), ASCII text and copied bytes, and the array
 * grows from any starting room.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { JsonBytes } from '../../src/text/json-bytes.ts';

const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e21, 1e-7, 5e-324),
  fc.constantFrom(99_999_999, 100_000_000, 100_000_001, 1_795_898_977_000_000),
  // Whole thousandths (execution times), at and past the magnitudes written without V8's help.
  fc.integer({ min: -2e12, max: 2e12 }).map((thousandths) => thousandths / 1000),
  fc.integer({ min: -999_999, max: 999_999 }).map((thousandths) => thousandths / 1000),
  fc.constantFrom(0.001, 0.1, 0.5, 13.667, 999_999_999.999, 1e9 - 0.001, 1e9 + 0.5, 0.1 + 0.2),
);
const text = (out: JsonBytes) => new TextDecoder().decode(out.copy());

describe('JSON as bytes', () => {
  test('a number is written as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(fc.option(anyNumber, { nil: null }), (value) => {
        expect(text(new JsonBytes(1).number(value))).toBe(JSON.stringify(value));
      }),
      { numRuns: 5_000 },
    );
  });

  test('numbers, text and bytes in turn, from any starting room', () => {
    fc.assert(
      fc.property(
        fc.array(anyNumber, { maxLength: 40 }),
        fc.integer({ min: 0, max: 300 }),
        (values, room) => {
          const out = new JsonBytes(room).byte(0x5b);
          values.forEach((value, i) => {
            if (i > 0) out.ascii(',');
            out.bytes(new TextEncoder().encode('{"v":')).number(value).ascii('}');
          });
          out.byte(0x5d);
          expect(text(out)).toBe(JSON.stringify(values.map((v) => ({ v }))));
        },
      ),
    );
  });

  test('a timestamp is written as JSON.stringify writes it, on a whole second or not', () => {
    const timestamps = fc.oneof(
      anyNumber,
      fc.integer({ min: -9_007_199_254, max: 9_007_199_254 }).map((seconds) => seconds * 1_000_000),
      fc.integer({ min: 1, max: 1e6 }).map((seconds) => seconds * 1e16),
    );
    fc.assert(
      fc.property(timestamps, (value) => {
        expect(text(new JsonBytes(1).timestamp(value))).toBe(JSON.stringify(value));
      }),
      { numRuns: 5_000 },
    );
  });

  test('a value written again is a copy of its bytes', () => {
    const out = new JsonBytes(4).ascii('[');
    const start = out.length;
    out.number(2244.276);
    out.ascii(',').again(start, out.length - 1).ascii(']');
    expect(text(out)).toBe('[2244.276,2244.276]');
  });

  test('a cut forgets what came after it; a copy holds only the bytes written', () => {
    const out = new JsonBytes(1_000).ascii('[1');
    const at = out.length;
    out.ascii(',2');
    out.cut(at);
    const copy = out.byte(0x5d).copy();
    expect(new TextDecoder().decode(copy)).toBe('[1]');
    expect(copy.buffer.byteLength).toBe(3);
    expect(out.view().buffer.byteLength).toBe(1_000);
    expect(new JsonBytes(4).ascii('x'.repeat(100)).copy().length).toBe(100);
    expect(new JsonBytes(100).bytes(new Uint8Array(100).fill(0x61)).copy().length).toBe(100);
  });

  test('digits written over bytes already written are the number, zero-padded', () => {
    const digitsAndValue = fc.integer({ min: 1, max: 15 }).chain((digits) =>
      fc.tuple(fc.constant(digits), fc.integer({ min: 0, max: 10 ** digits - 1 }))
    );
    fc.assert(
      fc.property(digitsAndValue, fc.integer({ min: 0, max: 8 }), ([digits, value], at) => {
        const out = new JsonBytes(4).ascii('x'.repeat(at + digits + 2));
        out.digitsAt(at, value, digits);
        expect(text(out)).toBe('x'.repeat(at) + String(value).padStart(digits, '0') + 'xx');
      }),
    );
    expect(() => new JsonBytes(4).ascii('12').digitsAt(1, 5, 2)).toThrow(
      'digits must be written over bytes already written: 2 at 1 of 2',
    );
  });
});
