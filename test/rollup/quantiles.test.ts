import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  quantile,
  type QuantileSketch,
  quantileSketch,
  RELATIVE_ACCURACY,
  writeSketch,
} from '../../src/rollup/quantiles.ts';
import { SevenBitWriter } from '../../src/text/seven-bit.ts';

function nearestRank(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1] ?? null;
}

function sketchOf(values: readonly number[]): QuantileSketch {
  let sketch = quantileSketch.empty();
  for (const value of values) sketch = quantileSketch.add(sketch, value);
  return sketch;
}

/** Deterministic log-normal samples (Box-Muller over a seeded LCG), like execution times. */
function logNormal(count: number, seed: number, mu = 3, sigma = 1): number[] {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    return Math.round(Math.exp(mu + sigma * z) * 1000) / 1000;
  });
}

/** CONTRACT section 6: p95 and p99 are exact for buckets of up to this many values (not imported). */
const CONTRACT_EXACT_VALUES = 100;

/** 1 to 100 values, every length about as likely (fast-check's default keeps arrays short). */
const upToExactValues = fc.integer({ min: 1, max: CONTRACT_EXACT_VALUES }).chain((length) =>
  fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: length, maxLength: length })
);

describe('quantile sketch', () => {
  test('is exact (nearest rank) for 100 values 1..100 added in any order, split anywhere', () => {
    const values = Array.from({ length: CONTRACT_EXACT_VALUES }, (_, i) => 100 - i);
    for (const split of [0, 1, 37, 99, 100]) {
      const merged = quantileSketch.merge(
        sketchOf(values.slice(0, split)),
        sketchOf(values.slice(split)),
      );
      expect([quantile(merged, 0.95), quantile(merged, 0.99)]).toEqual([95, 99]);
    }
    // One value more, and the sketch may approximate (within 0.5%).
    const beyond = sketchOf([...values, 101]);
    expect(Math.abs((quantile(beyond, 0.99) ?? 0) - 100) / 100).toBeLessThanOrEqual(0.005);
  });

  test('is exact (nearest rank) for up to 100 values, however they are split and merged', () => {
    fc.assert(
      fc.property(
        upToExactValues,
        fc.nat(),
        (values, cut) => {
          const split = cut % (values.length + 1);
          const merged = quantileSketch.merge(
            sketchOf(values.slice(0, split)),
            sketchOf(values.slice(split)),
          );
          for (const q of [0.95, 0.99]) {
            expect(quantile(merged, q)).toBe(nearestRank(values, q));
            expect(quantile(sketchOf(values), q)).toBe(nearestRank(values, q));
          }
        },
      ),
    );
  });

  test('is within 0.5% of the exact nearest rank for large heavy-tailed buckets, merged from parts', () => {
    const cases = [[101, 1, 1], [1_000, 2, 1], [10_000, 3, 1.2], [50_000, 4, 1.6], [200_000, 5, 2]];
    for (const [count, seed, sigma] of cases as [number, number, number][]) {
      const values = logNormal(count, seed, 3, sigma);
      // Fold in flush-sized parts and merge them, as the partition writer does.
      let merged = quantileSketch.empty();
      for (let i = 0; i < values.length; i += 250) {
        const part = sketchOf(values.slice(i, i + 250));
        merged = quantileSketch.merge(
          quantileSketch.deserialize(quantileSketch.serialize(merged)),
          part,
        );
      }
      for (const q of [0.95, 0.99]) {
        const exact = nearestRank(values, q) ?? Number.NaN;
        const estimate = quantile(merged, q) ?? Number.NaN;
        expect(Math.abs(estimate - exact) / exact, `n=${count} q=${q}`).toBeLessThanOrEqual(
          RELATIVE_ACCURACY,
        );
      }
    }
  });

  test('merging exact sketches keeps every value in order and leaves the other unchanged', () => {
    fc.assert(
      fc.property(upToExactValues, fc.nat(), (values, cut) => {
        const split = cut % (values.length + 1);
        const other = sketchOf(values.slice(split));
        const before = quantileSketch.serialize(other);
        const merged = quantileSketch.merge(sketchOf(values.slice(0, split)), other);
        expect(merged).toEqual({ kind: 'exact', values: [...values].sort((a, b) => a - b) });
        expect(quantileSketch.serialize(other)).toBe(before);
      }),
    );
  });

  test('a sketch merged with itself holds each of its values twice', () => {
    const sketch = sketchOf([3, 1, 2]);
    expect(quantileSketch.merge(sketch, sketch)).toEqual({
      kind: 'exact',
      values: [1, 1, 2, 2, 3, 3],
    });
  });

  test('serializes and reads back both forms', () => {
    const small = sketchOf([3, 1, 2]);
    expect(quantileSketch.serialize(small)).toBe('{"v":[1,2,3]}');
    const large = sketchOf([...logNormal(500, 9), 0, -3.5, -40]);
    const again = quantileSketch.deserialize(quantileSketch.serialize(large));
    expect(again.kind).toBe('bins');
    for (const q of [0.001, 0.004, 0.5, 0.95, 0.99, 1]) {
      expect(quantile(again, q)).toBe(quantile(large, q));
    }
    expect(quantile(again, 0.001)).toBeCloseTo(-40, 0);
  });

  test('a binned sketch written again after new bins reads as one built at once', () => {
    // Each write sorts only the bins added since the last (src/rollup/quantiles.ts,
    // `withAddedBins`): new bins below, between and above the known ones, of both signs.
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.double({ min: -1e5, max: 1e5, noNaN: true }), { maxLength: 40 }), {
          minLength: 2,
          maxLength: 8,
        }),
        (rounds) => {
          let sketch = sketchOf(logNormal(150, rounds.length));
          const values = [...logNormal(150, rounds.length)];
          for (const round of rounds) {
            for (const value of round) sketch = quantileSketch.add(sketch, value);
            values.push(...round);
            expect(quantileSketch.serialize(sketch)).toBe(
              quantileSketch.serialize(sketchOf(values)),
            );
            const out = new SevenBitWriter();
            writeSketch(out, sketch);
            const fresh = new SevenBitWriter();
            writeSketch(fresh, sketchOf(values));
            expect(out.text()).toBe(fresh.text());
          }
        },
      ),
    );
  });

  test('refuses corrupt text with a message naming the expected form', () => {
    expect(() => quantileSketch.deserialize('{"x":1}')).toThrow(/must be \{"v": \[numbers\]\}/);
    expect(() => quantileSketch.deserialize('{"b":[0,[1,-2],[]]}')).toThrow(/positive counts/);
  });

  test('an empty sketch has no quantile', () => {
    expect(quantile(quantileSketch.empty(), 0.95)).toBeNull();
  });
});
