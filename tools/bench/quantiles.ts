/**
 * Quantile accuracy, size and speed: the project's sketch (exact up to 100 values, then a
 * relative-error log histogram) against the `tdigest` package the first specification named, on
 * heavy-tailed latencies folded in flush-sized parts of 250 values and merged, as the partition
 * writer does. Prints the worst relative error of p95/p99 against the exact nearest rank.
 *
 * Run: `npm run bench:quantiles`
 *
 * @module
 */
import { TDigest } from 'tdigest';
import { quantile, quantileSketch } from '../../src/rollup/quantiles.ts';
import { withoutFlags } from '../tool-args.ts';

withoutFlags(import.meta.url);

const PART = 250;

function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
}

/** Log-normal latencies with 0.2% outliers 50 times slower. */
function latencies(count: number, seed: number, sigma: number): number[] {
  const uniform = lcg(seed);
  return Array.from({ length: count }, () => {
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const outlier = uniform() < 0.002 ? 50 : 1;
    return Math.exp(3 + sigma * z) * outlier;
  });
}

function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.ceil(q * sorted.length) - 1] ?? Number.NaN;
}

function digestNearestRank(digest: TDigest, q: number): number {
  const centroids = digest.toArray();
  const total = centroids.reduce((sum, c) => sum + c.n, 0);
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const centroid of centroids) {
    seen += centroid.n;
    if (seen >= rank) return centroid.mean;
  }
  return Number.NaN;
}

interface Result {
  worstError: number;
  largestBytes: number;
  ms: number;
}

function measure(
  fold: (values: number[]) => { p: (q: number) => number; bytes: number },
): Result {
  const result: Result = { worstError: 0, largestBytes: 0, ms: 0 };
  for (const sigma of [0.8, 1.2, 1.6]) {
    for (const count of [300, 3_000, 30_000, 200_000]) {
      for (const seed of [1, 2]) {
        const values = latencies(count, seed * 7_919 + count, sigma);
        const sorted = [...values].sort((a, b) => a - b);
        const started = performance.now();
        const sketch = fold(values);
        result.ms += performance.now() - started;
        result.largestBytes = Math.max(result.largestBytes, sketch.bytes);
        for (const q of [0.95, 0.99]) {
          const exact = nearestRank(sorted, q);
          result.worstError = Math.max(result.worstError, Math.abs(sketch.p(q) - exact) / exact);
        }
      }
    }
  }
  return result;
}

function ours(values: number[]) {
  let merged = quantileSketch.empty();
  for (let i = 0; i < values.length; i += PART) {
    let part = quantileSketch.empty();
    for (const value of values.slice(i, i + PART)) part = quantileSketch.add(part, value);
    merged = quantileSketch.merge(
      quantileSketch.deserialize(quantileSketch.serialize(merged)),
      part,
    );
  }
  return {
    p: (q: number) => quantile(merged, q) ?? Number.NaN,
    bytes: quantileSketch.serialize(merged).length,
  };
}

function tdigest(delta: number) {
  return (values: number[]) => {
    const merged = new TDigest(delta);
    for (let i = 0; i < values.length; i += PART) {
      const part = new TDigest(delta);
      part.push(values.slice(i, i + PART));
      merged.push_centroid(part.toArray());
    }
    const bytes = JSON.stringify(merged.toArray().flatMap((c) => [c.mean, c.n])).length;
    return { p: (q: number) => digestNearestRank(merged, q), bytes };
  };
}

console.log('method: log-normal latencies (sigma 0.8, 1.2, 1.6; 0.2% outliers x50), 300 to 200k');
console.log('values per bucket, folded in parts of 250 and merged; error vs exact nearest rank.');
console.log('sketch                      worst p95/p99 error   largest serialized   fold time');
const rows: [string, Result][] = [
  ['log histogram (ours, 0.5%)', measure(ours)],
  ...[0.01, 0.005, 0.003, 0.002].map((delta): [string, Result] => [
    `tdigest delta=${delta}`,
    measure(tdigest(delta)),
  ]),
];
for (const [name, result] of rows) {
  console.log(
    `${name.padEnd(28)}${(result.worstError * 100).toFixed(3).padStart(8)} %` +
      `${String(result.largestBytes).padStart(16)} B${result.ms.toFixed(0).padStart(14)} ms`,
  );
}
