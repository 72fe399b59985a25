import { describe, expect, it } from 'vitest';
import { Random, WeightedSampler, zipfWeights } from '../../src/synthetic/random.ts';

describe('Random', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const draw = (seed: number) => {
      const random = new Random(seed);
      return Array.from({ length: 5 }, () => random.uint32());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(draw(2 ** 40)).not.toEqual(draw(0));
  });

  it('refuses a seed that is not a safe integer', () => {
    expect(() => new Random(0.5)).toThrow('seed must be a safe integer: got 0.5');
  });

  it('draws floats in [0, 1) with a plausible mean, and integers in range', () => {
    const random = new Random(1);
    const values = Array.from({ length: 10_000 }, () => random.next());
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(Math.abs(values.reduce((a, b) => a + b, 0) / values.length - 0.5)).toBeLessThan(0.02);
    const ints = Array.from({ length: 1000 }, () => random.int(6));
    expect(new Set(ints)).toEqual(new Set([0, 1, 2, 3, 4, 5]));
  });

  it('draws standard normals', () => {
    const random = new Random(2);
    const values = Array.from({ length: 20_000 }, () => random.normal());
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });

  it('makes hex strings and v4 UUIDs', () => {
    const random = new Random(3);
    expect(random.hex(5)).toMatch(/^[0-9a-f]{5}$/);
    expect(random.hex(16)).toMatch(/^[0-9a-f]{16}$/);
    expect(random.uuid()).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('refuses to pick from an empty array', () => {
    expect(() => new Random(1).pick([])).toThrow('pick needs a non-empty array');
  });
});

describe('WeightedSampler', () => {
  it('draws indices in proportion to their weights, never a zero weight', () => {
    const sampler = new WeightedSampler([1, 0, 3]);
    const random = new Random(4);
    const counts = [0, 0, 0];
    for (let i = 0; i < 8000; i++) {
      const index = sampler.draw(random);
      counts[index] = (counts[index] ?? 0) + 1;
    }
    expect(counts[1]).toBe(0);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeGreaterThan(2.7);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeLessThan(3.3);
  });

  it.each([[[]], [[-1]], [[0, 0]], [[Number.POSITIVE_INFINITY]]])(
    'refuses weights %j',
    (weights) => {
      expect(() => new WeightedSampler(weights)).toThrow(RangeError);
    },
  );

  it('builds Zipf weights', () => {
    expect(zipfWeights(3, 1)).toEqual([1, 0.5, 1 / 3]);
  });
});
