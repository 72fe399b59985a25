/**
 * Benchmark of the synthetic generator (src/synthetic/generator.ts), which must never be the
 * bottleneck of a load test.
 *
 *   npm run bench:generate
 *
 * Method: 200,000 events per round (seed 1, 1 h span, 5% out of order, 1% invalid), one warm-up
 * round and 5 timed rounds, median printed. "lines" consumes each line as a string (its length
 * is summed); "lines + UTF-8" also encodes every line into a reused buffer (`encodeInto`), the work
 * a producer or file writer adds (and forces the string to be flattened). Single thread.
 *
 * @module
 */

import { generateEvents, type GeneratorOptions } from '../../src/synthetic/generator.ts';
import { environment, measure, rate } from './measure.ts';
import { withoutFlags } from '../tool-args.ts';

withoutFlags(import.meta.url);

const EVENTS = 200_000;
const options: GeneratorOptions = {
  seed: 1,
  events: EVENTS,
  nowUs: 1_795_256_130_000_000,
  outOfOrder: 0.05,
  invalid: 0.01,
};

console.log(`generate benchmark: ${environment()}`);
let bytes = 0;
const lines = measure(() => {
  let total = 0;
  for (const { line } of generateEvents(options)) total += line.length;
  bytes = total;
  return total;
}, EVENTS);
const encoder = new TextEncoder();
const buffer = new Uint8Array(1 << 16);
const encoded = measure(() => {
  let total = 0;
  for (const { line } of generateEvents(options)) total += encoder.encodeInto(line, buffer).written;
  return total;
}, EVENTS);
console.log(
  `lines:         ${rate(lines.median)} (mean ${Math.round(bytes / EVENTS)} B per line)\n` +
    `lines + UTF-8: ${rate(encoded.median)}`,
);
