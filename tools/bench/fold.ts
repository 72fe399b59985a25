/**
 * Benchmark of a consumer's own CPU work per event, without Kafka and Redis: parse, fold, and
 * per flush the writer's merge and serialization plus the commit scripts' arguments. It is the
 * part of `bench:ingest` that this code controls, measured on one thread.
 *
 *   npm run bench:fold
 *
 * Method: 100,000 generated events (seed 1, last hour, 1000 projects, Zipf), as UTF-8 bytes,
 * spread over 12 partitions per source by index; each partition flushes every 3,000 events into
 * a store that holds nothing (every key is new, as most second buckets are) and only builds the
 * arguments of the commit scripts and of the ring buffers' commands, as the Redis store sends
 * them. One warm-up round, then 5 timed rounds; the median rate is printed.
 *
 * @module
 */
import { emptyStore, foldLines, foldRound } from './fold-round.ts';
import { environment, rate } from './measure.ts';

const EVENTS = 100_000;
const FLUSH_EVENTS = 3_000;
const ROUNDS = 5;

const lines = foldLines(EVENTS);
const round = (store: Parameters<typeof foldRound>[0]) => foldRound(store, lines, FLUSH_EVENTS);

let argumentCount = 0;
const store = emptyStore((count) => (argumentCount += count));
console.log(`fold benchmark: ${environment()}`);
await round(store);
const rates: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const started = performance.now();
  await round(store);
  rates.push(lines.length / ((performance.now() - started) / 1000));
}
const median = rates.toSorted((a, b) => a - b)[Math.floor(ROUNDS / 2)] ?? 0;
console.log(
  `parse + fold + merge + commit arguments: ${rate(median)} events on one thread ` +
    `(${(1e6 / median).toFixed(1)} µs per event; ${
      Math.round(argumentCount / (ROUNDS + 1) / lines.length * 10) / 10
    } script arguments per event)`,
);
