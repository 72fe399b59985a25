/**
 * A stored invocation-stats state finalized straight from its bytes (what an answer does with a
 * bucket of one part) gives what building the state and finalizing it gives, value for value, and
 * refuses what the full reader refuses, with its message.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Invocation } from '../../src/events/types.ts';
import { finalizeStored, invocationStats } from '../../src/rollup/invocation-stats.ts';
import { quantile, quantileSketch, readSketch, writeSketch } from '../../src/rollup/quantiles.ts';
import { readSketchQuantiles } from '../../src/rollup/stored-quantiles.ts';
import { SevenBitReader, SevenBitWriter } from '../../src/text/seven-bit.ts';
import { legacyInvocationJson } from './legacy-states.ts';

const time = fc.oneof(
  fc.constant(null),
  fc.constant(0),
  fc.constant(-0),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((value) => value === 0 ? 0 : value),
  fc.integer({ min: -1_000, max: 600_000 }),
  fc.integer({ min: 0, max: 2_000 }).map((n) => n / 1000),
);
const invocation: fc.Arbitrary<Invocation> = fc.record({
  projectRef: fc.constant('p'),
  functionId: fc.constant(null),
  executionTimeMs: time,
  statusCode: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 999 })),
});
/** Lists of any length up to `most`, not mostly short ones: a sketch bins past 100 values. */
const listOf = <T>(item: fc.Arbitrary<T>, most: number) =>
  fc.integer({ min: 0, max: most }).chain((length) =>
    fc.array(item, { minLength: length, maxLength: length })
  );
/** States of up to 410 invocations, merged from two (bins and exact lists merged). */
const states = fc.tuple(listOf(invocation, 260), listOf(invocation, 150)).map(([first, second]) => {
  const a = first.reduce((state, one) => invocationStats.add(state, one), invocationStats.empty());
  const b = second.reduce((state, one) => invocationStats.add(state, one), invocationStats.empty());
  return invocationStats.merge(a, b);
});

/** `finalize(deserialize(text))`, or the message it throws. */
function finalizedInFull(text: string): unknown {
  try {
    return invocationStats.finalize(invocationStats.deserialize(text));
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

function finalizedStored(text: string): unknown {
  try {
    return finalizeStored(text);
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

describe('a stored invocation-stats state finalized from its bytes', () => {
  test('gives what the state built and finalized gives, binary and JSON, exact and binned', () => {
    fc.assert(
      fc.property(states, (state) => {
        // Each form against the full reader of that form: JSON keeps no -0, the binary form does.
        for (const text of [invocationStats.serialize(state), legacyInvocationJson(state)]) {
          const expected = invocationStats.finalize(invocationStats.deserialize(text));
          // `toStrictEqual` tells -0 from 0 and null from a number.
          expect(finalizeStored(text)).toStrictEqual(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  test('refuses what the full reader refuses, with its message, and reads what it reads', () => {
    fc.assert(
      fc.property(
        states,
        fc.nat(),
        fc.integer({ min: 0, max: 0x7f }),
        fc.boolean(),
        (state, at, byte, cut) => {
          const text = invocationStats.serialize(state);
          const where = at % text.length;
          // A byte changed, or the text cut there: most are refused, some still read.
          const damaged = cut
            ? text.slice(0, where)
            : text.slice(0, where) + String.fromCharCode(byte) + text.slice(where + 1);
          expect(finalizedStored(damaged)).toStrictEqual(finalizedInFull(damaged));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  test('a stored state of a newer version is refused as such', () => {
    expect(() => finalizeStored('\x1f\x00')).toThrow(/newer version/);
  });
});

describe('two quantiles read from a stored sketch', () => {
  const values = listOf(
    fc.oneof(
      fc.double({ min: -1e9, max: 1e9, noNaN: true }),
      fc.integer({ min: -5, max: 5 }),
    ),
    400,
  );

  test('in bins: the negatives from the largest magnitude, then a single zero, then the rest', () => {
    // 101 values bin: the median is the one zero, the lowest percentile the largest magnitude.
    const list = Array.from({ length: 101 }, (_, i) => i - 50);
    const sketch = list.reduce((s, value) => quantileSketch.add(s, value), quantileSketch.empty());
    expect(sketch.kind).toBe('bins');
    const out = new SevenBitWriter();
    writeSketch(out, sketch);
    const found = { low: null as number | null, high: null as number | null };
    readSketchQuantiles(new SevenBitReader(out.text()), 0.01, 0.5, found);
    expect(found).toStrictEqual({ low: quantile(sketch, 0.01), high: 0 });
    expect(found.low).toBeLessThan(-49);
  });

  test('bins that repeat one (a gap too small past 2^53) are refused, as the full reader does', () => {
    // Zero count 0; three positive bins, 2^53 - 1 (zigzag 2^54 - 2), then gaps of 1 and 1: the
    // second gap adds nothing to 2^53. Before, the full reader counted the repeated bin once in
    // its map and twice in its total, and the two readers disagreed.
    const out = new SevenBitWriter();
    out.byte(2).unsigned(0).unsigned(3).unsigned(2 ** 54 - 2).unsigned(1);
    out.unsigned(1).unsigned(1).unsigned(1).unsigned(1).unsigned(0);
    const text = out.text();
    const found = { low: null as number | null, high: null as number | null };
    expect(() => readSketch(new SevenBitReader(text))).toThrow('strictly ascending');
    expect(() => readSketchQuantiles(new SevenBitReader(text), 0.95, 0.99, found))
      .toThrow('strictly ascending');
  });

  test('are the quantiles of the sketch read in full, for any two levels', () => {
    fc.assert(
      fc.property(
        values,
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        (list, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const sketch = list.reduce(
            (s, value) => quantileSketch.add(s, value),
            quantileSketch.empty(),
          );
          const out = new SevenBitWriter();
          writeSketch(out, sketch);
          const text = out.text();
          const found = { low: null as number | null, high: null as number | null };
          const input = new SevenBitReader(text);
          readSketchQuantiles(input, low, high, found);
          expect(input.done).toBe(true);
          const read = readSketch(new SevenBitReader(text));
          expect(found).toStrictEqual({ low: quantile(read, low), high: quantile(read, high) });
        },
      ),
      { numRuns: 500 },
    );
  });
});
