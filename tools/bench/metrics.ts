/**
 * What the operator metrics cost a consumer per event (`npm run bench:metrics`), in process, on
 * one thread, without Kafka and Redis; the end-to-end figure is `bench:ingest`'s consumer CPU
 * per event, whose noise on a shared machine can hide a few percent.
 *
 * 1. Per call: the added per-message work (widening a flush's span of Kafka timestamps to its
 *    newest, beside the oldest kept before), one flush's metrics (`observeFlush`: two counters,
 *    three histograms), and one store call through `observedStore` with the Prometheus observer
 *    (against the same call unwrapped, on a store that answers at once). 5 timed rounds each, the
 *    median, in CPU time of this process (wall time on a shared machine counts others' turns).
 * 2. Per event, on the consumer's own work (`bench:fold`'s: 50,000 generated events over 12
 *    partitions per source, parse, fold, merge, commit arguments): the store calls and flushes
 *    one round makes are counted, and the cost per event is the per-message work plus (flush
 *    metrics + store calls per flush × one call's cost) / events per flush, for flushes of
 *    3,000, 500 and 50 events; set against that work's own µs per event.
 * 3. The same work with the metrics on and off, in alternating rounds (5 each), the median of
 *    each: the direct measurement, as noisy as the machine.
 *
 * @module
 */
import process from 'node:process';
import { Registry } from 'prom-client';
import { registerConsumerMetrics } from '../../consumers/metrics.ts';
import { type ProducedSpan, widenProducedSpan } from '../../consumers/produced-span.ts';
import { registerStoreMetrics } from '../../service/store-metrics.ts';
import { observedStore } from '../../src/store/observed.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { emptyStore, type FoldLine, foldLines, foldRound, NOW_US } from './fold-round.ts';
import { environment } from './measure.ts';
import { withoutFlags } from '../tool-args.ts';

withoutFlags(import.meta.url);

const ROUNDS = 5;
const EVENTS = 50_000;

/**
 * This process's CPU time (user and system) in ns: on a machine other processes share, wall
 * time counts their turns too.
 */
function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** The median of `rounds` timings of `work` (run `calls` times each), in ns of CPU per call. */
async function nsPerCall(calls: number, work: (i: number) => unknown): Promise<number> {
  const timings: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const started = cpuNs();
    for (let i = 0; i < calls; i++) {
      const result = work(i);
      if (result instanceof Promise) await result;
    }
    // The first round warms up.
    if (round > 0) timings.push((cpuNs() - started) / calls);
  }
  return timings.toSorted((a, b) => a - b)[Math.floor(timings.length / 2)] ?? 0;
}

function metrics() {
  const registry = new Registry();
  const consumer = registerConsumerMetrics(registry, {
    lag: () => Promise.resolve([]),
    paused: () => 0,
    undecodable: () => [],
  });
  return { consumer, store: registerStoreMetrics(registry) };
}

console.log(`metrics benchmark: ${environment()}`);

// 1. Per call.
const stamps = Array.from({ length: 1024 }, (_, i) => String(1_795_256_130_000 + i * 7));
const span: ProducedSpan = { oldestProducedMs: null, newestProducedMs: null };
const oldestOnly = { oldestProducedMs: null as number | null };
const before = await nsPerCall(2_000_000, (i) => {
  // The code this replaced: the oldest timestamp only.
  const produced = Number(stamps[i & 1023]);
  if (
    Number.isFinite(produced) &&
    (oldestOnly.oldestProducedMs === null || produced < oldestOnly.oldestProducedMs)
  ) oldestOnly.oldestProducedMs = produced;
});
const after = await nsPerCall(2_000_000, (i) => widenProducedSpan(span, stamps[i & 1023]));
const perMessage = Math.max(0, after - before);
console.log(
  `per message: timestamp span ${after.toFixed(1)} ns, oldest only (before) ` +
    `${before.toFixed(1)} ns: ${perMessage.toFixed(1)} ns added`,
);

const observing = metrics();
const flushNs = await nsPerCall(200_000, (i) =>
  observing.consumer.observeFlush({
    stream: `logs.edge/${i % 12}`,
    events: 1_000,
    rejected: i % 3,
    durationMs: 12.5,
    newestProducedMs: NOW_US / 1000 - 400,
  }, NOW_US / 1000));
console.log(`per flush: observeFlush ${flushNs.toFixed(0)} ns`);

const plain = emptyStore(() => undefined);
const wrapped = observedStore(plain, observing.store);
const plainCall = await nsPerCall(200_000, () => plain.readOffset('k'));
const wrappedCall = await nsPerCall(200_000, () => wrapped.readOffset('k'));
const perStoreCall = Math.max(0, wrappedCall - plainCall);
console.log(
  `per store call: observed ${wrappedCall.toFixed(0)} ns, plain ${plainCall.toFixed(0)} ns: ` +
    `${perStoreCall.toFixed(0)} ns added`,
);

// 2. Per event, on the consumer's own work.
const lines = foldLines(EVENTS);
let calls = 0;
const counting = observedStore(plain, {
  command: () => (calls += 1),
  refused: () => undefined,
  partsRead: () => undefined,
});
let baseline = 0;
for (const flushEvents of [3_000, 500, 50]) {
  calls = 0;
  let flushes = 0;
  await foldRound(counting, lines, flushEvents, { onFlush: () => (flushes += 1) });
  const started = cpuNs();
  await foldRound(plain, lines, flushEvents);
  const workNs = (cpuNs() - started) / lines.length;
  if (flushEvents === 3_000) baseline = workNs;
  const addedNs = perMessage + (flushes * flushNs + calls * perStoreCall) / lines.length;
  console.log(
    `flushes of ${flushEvents} events: ${(calls / flushes).toFixed(1)} store calls per flush; ` +
      `metrics ${addedNs.toFixed(1)} ns per event against ${(workNs / 1000).toFixed(1)} µs of ` +
      `work per event (${((addedNs / workNs) * 100).toFixed(2)}%)`,
  );
}

// 3. The same work, metrics on and off, alternating.
const instrumented = (): Promise<number> => {
  const { consumer, store } = metrics();
  const observed: RollupStore = observedStore(plain, store);
  const flushSpan: ProducedSpan = { oldestProducedMs: null, newestProducedMs: null };
  return foldRound(observed, lines, 3_000, {
    onEvent: (_line: FoldLine) => widenProducedSpan(flushSpan, stamps[0]),
    onFlush: (stream, events) =>
      consumer.observeFlush({
        stream,
        events,
        rejected: 0,
        durationMs: 1,
        newestProducedMs: flushSpan.newestProducedMs,
      }, NOW_US / 1000),
  });
};
const timings = { off: [] as number[], on: [] as number[] };
for (let round = 0; round < 5; round++) {
  for (const side of ['off', 'on'] as const) {
    const started = cpuNs();
    await (side === 'on' ? instrumented() : foldRound(plain, lines, 3_000, { onEvent: () => {} }));
    timings[side].push((cpuNs() - started) / 1000 / lines.length);
  }
}
const median = (values: number[]) => values.toSorted((a, b) => a - b)[2] ?? 0;
const spread = (values: number[]) =>
  `${Math.min(...values).toFixed(2)} to ${Math.max(...values).toFixed(2)}`;
console.log(
  `alternating rounds of the work: metrics off ${median(timings.off).toFixed(2)} µs per event ` +
    `(${spread(timings.off)}), on ${median(timings.on).toFixed(2)} µs (${spread(timings.on)}): ` +
    `${(((median(timings.on) - median(timings.off)) / median(timings.off)) * 100).toFixed(1)}% ` +
    `(baseline of part 2: ${(baseline / 1000).toFixed(1)} µs)`,
);
