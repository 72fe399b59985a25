/**
 * The 7-bit binary form of stored states: every number written is read back exactly (integers of
 * either sign, any finite double, -0 kept), every byte is below 0x80, and a short or 8-bit text
 * is refused with a message.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { SevenBitReader, SevenBitWriter } from '../../src/text/seven-bit.ts';

const bytesOf = (text: string) => [...text].map((c) => c.charCodeAt(0));

describe('seven-bit numbers', () => {
  test('unsigned varints: six bits a byte, lowest first, 0x40 on all but the last', () => {
    const out = new SevenBitWriter();
    expect(bytesOf(out.unsigned(0).unsigned(63).unsigned(64).unsigned(4_095).text())).toEqual([
      0,
      63,
      0x40,
      1,
      0x7f,
      0x3f,
    ]);
    expect(out.unsigned(Number.MAX_SAFE_INTEGER).text()).toHaveLength(9);
  });

  test('every safe integer unsigned, and every integer below 2^52 signed, is read back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.maxSafeNat()),
        fc.array(fc.integer({ min: -(2 ** 52) + 1, max: 2 ** 52 - 1 })),
        (naturals, integers) => {
          const out = new SevenBitWriter();
          for (const n of naturals) out.unsigned(n);
          for (const n of integers) out.signed(n);
          const text = out.text();
          expect(bytesOf(text).every((byte) => byte < 0x80)).toBe(true);
          const input = new SevenBitReader(text);
          expect(naturals.map(() => input.unsigned())).toEqual(naturals);
          expect(integers.map(() => input.signed())).toEqual(integers);
          expect(input.done).toBe(true);
        },
      ),
    );
  });

  test('every finite double is read back exactly, -0 and subnormals included', () => {
    const special = [0, -0, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 50, 0.1];
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true })), (values) => {
        const all = [...special, ...values];
        const out = new SevenBitWriter();
        for (const value of all) out.real(value);
        const text = out.text();
        expect(bytesOf(text).every((byte) => byte < 0x80)).toBe(true);
        const input = new SevenBitReader(text);
        for (const value of all) expect(Object.is(input.real(), value)).toBe(true);
        expect(input.done).toBe(true);
      }),
    );
  });

  test('an integer real from -16 to 15 takes one byte, a fraction twelve', () => {
    const out = new SevenBitWriter();
    expect(out.real(15).text()).toHaveLength(1);
    expect(out.real(-16).text()).toHaveLength(1);
    expect(out.real(16).text()).toHaveLength(2);
    expect(out.real(-17).text()).toHaveLength(2);
    expect(out.real(1.5).text()).toHaveLength(12);
  });

  test('the writer grows past its first buffer and starts again empty after each text', () => {
    const out = new SevenBitWriter();
    for (let i = 0; i < 1_000; i++) out.byte(i % 64);
    expect(bytesOf(out.text())).toEqual(Array.from({ length: 1_000 }, (_, i) => i % 64));
    expect(out.text()).toBe('');
  });

  test.each([
    ['an empty text', '', (input: SevenBitReader) => input.unsigned(), 'ends early, at byte 0'],
    ['a varint cut short', '\x40', (input: SevenBitReader) => input.unsigned(), 'ends early'],
    [
      'a byte of 8 bits',
      Uint8Array.of(0x41, 0x80),
      (input: SevenBitReader) => input.byte() + input.byte(),
      'byte 1 is not 7-bit: got 128',
    ],
    // Text is read as its UTF-8 bytes: `é` is 0xc3 0xa9.
    ['a character beyond 7 bits', 'é', (input: SevenBitReader) => input.byte(), 'got 195'],
    [
      'a varint with a byte of 8 bits',
      Uint8Array.of(0x40, 0xff),
      (input: SevenBitReader) => input.unsigned(),
      'byte 1 is not 7-bit: got 255',
    ],
    [
      'a double with a byte of 8 bits',
      Uint8Array.of(0x01, ...new Array<number>(10).fill(0), 0x80),
      (input: SevenBitReader) => input.real(),
      'malformed',
    ],
    ['bytes cut short', Uint8Array.of(0x41, 0x40), (input: SevenBitReader) => {
      input.byte();
      return input.unsigned();
    }, 'ends early, at byte 2'],
    [
      'a varint of ten bytes',
      '\x40'.repeat(10),
      (input: SevenBitReader) => input.unsigned(),
      'longer than nine',
    ],
    [
      'an odd mark other than a double',
      '\x03',
      (input: SevenBitReader) => input.real(),
      'unknown mark',
    ],
    ['a double cut short', '\x01\x00', (input: SevenBitReader) => input.real(), 'ends early'],
    [
      'a double with 0x40 in a group',
      `\x01${'\x40'.repeat(11)}`,
      (input: SevenBitReader) => input.real(),
      'malformed',
    ],
    ['a double of infinity', infinity(), (input: SevenBitReader) => input.real(), 'not finite'],
  ])('%s is refused', (_what, text, read, message) => {
    expect(() => read(new SevenBitReader(text))).toThrow(message);
  });
});

/** The bits of +Infinity as `real` would write them, which it never does. */
function infinity(): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Number.POSITIVE_INFINITY);
  const bits = view.getBigUint64(0);
  const groups = Array.from({ length: 11 }, (_, i) => Number((bits >> BigInt(6 * i)) & 63n));
  return String.fromCharCode(1, ...groups);
}
