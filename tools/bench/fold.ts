/**
 * Benchmark of a consumer's own CPU work per event, without Kafka and Redis: parse, fold, and
 * per flush the writer's merge and serialization plus the commit scripts' arguments. It is the
 * part of `bench:ingest` that this code controls, measured on one thread.
 *
 *   npm run bench:fold [-- --rounds 5]
 *
 * Method: 100,000 generated events (seed 1, last hour, 1000 projects, Zipf), as UTF-8 bytes,
 * spread over 12 partitions per source by index; each partition flushes every 3,000 events into
 * a store that holds nothing (every key is new, as most second buckets are) and only builds the
 * arguments of the commit scripts and of the ring buffers' commands, as the Redis store sends
 * them. One warm-up round, then 5 timed rounds (`--rounds`); the median rate is printed, with the median CPU
 * time of the process per event (`process.cpuUsage()`, the garbage collector's threads included:
 * the figure to compare on a loaded machine) and the collector's pauses per round.
 *
 * Its profile by stage: `npx node --cpu-prof --cpu-prof-dir=DIR tools/bench/fold.ts`, then
 * the stages of `tools/bench/profile-stages.ts` (`bench:consumer`). Its allocation: run it with `--trace-gc`.
 *
 * @module
 */
import { PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import { toolArgs } from '../tool-args.ts';
import { emptyStore, foldLines, foldRound } from './fold-round.ts';
import { environment, rate } from './measure.ts';

const { values } = toolArgs(import.meta.url, {
  options: { rounds: { type: 'string', default: '5' } },
});
const EVENTS = 100_000;
const FLUSH_EVENTS = 3_000;
const ROUNDS = Number(values.rounds);

const lines = foldLines(EVENTS);
const round = (store: Parameters<typeof foldRound>[0]) => foldRound(store, lines, FLUSH_EVENTS);

let argumentCount = 0;
const store = emptyStore((count) => (argumentCount += count));
console.log(`fold benchmark: ${environment()}`);
await round(store);
let gcCount = 0;
let gcMs = 0;
const gc = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcCount += 1;
    gcMs += entry.duration;
  }
});
gc.observe({ entryTypes: ['gc'] });
const rates: number[] = [];
const cpuPerEvent: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await round(store);
  const { user, system } = process.cpuUsage(cpu);
  rates.push(lines.length / ((performance.now() - started) / 1000));
  cpuPerEvent.push((user + system) / lines.length);
}
// Entries are delivered asynchronously: let the last ones arrive.
await new Promise((resolve) => setTimeout(resolve, 50));
gc.disconnect();
const middle = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(ROUNDS / 2)] ?? 0;
const median = middle(rates);
console.log(
  `parse + fold + merge + commit arguments: ${rate(median)} events on one thread ` +
    `(${(1e6 / median).toFixed(1)} µs per event; ${
      Math.round(argumentCount / (ROUNDS + 1) / lines.length * 10) / 10
    } script arguments per event)`,
);
console.log(
  `CPU per event (process, median of ${ROUNDS} rounds): ${middle(cpuPerEvent).toFixed(1)} µs ` +
    `(rounds ${cpuPerEvent.map((us) => us.toFixed(1)).join(', ')}); garbage collector: ` +
    `${Math.round(gcCount / ROUNDS)} pauses and ${(gcMs / ROUNDS).toFixed(0)} ms per round`,
);
