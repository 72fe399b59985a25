/**
 * Benchmark of the per-project key bounds (src/rollup/admission.ts) as the partition processor
 * runs them (inside `PartitionWriter.fold`): `StreamAdmission.admit` on every valid event, after
 * its project's admitted keys are loaded.
 *
 *   npm run bench:admission
 *
 * Method: 200,000 generated events (seed 1, the default population, both sources), parsed once;
 * one stream's admission on the in-memory store with every project (no watermark) and its admitted
 * keys loaded.
 * The first pass admits the keys of the stream (the costlier case, keys being added); then one
 * warm-up and 5 timed rounds of the steady state (every key known), median printed. Single
 * thread. The figure is CPU per event added to the processor's fold.
 *
 * @module
 */
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { knownProject, ProjectCache } from '../../src/rollup/project-cache.ts';
import { StreamAdmission } from '../../src/rollup/stream-admission.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { environment, measure } from './measure.ts';
import { DIRECT_INGEST } from '../../src/rollup/stream-kind.ts';
import { withoutFlags } from '../tool-args.ts';

withoutFlags(import.meta.url);

const NOW_US = 1_795_256_130_000_000;
const EVENTS = 200_000;

const events: LogEvent[] = [];
for (const { source, line } of generateEvents({ seed: 1, events: EVENTS, nowUs: NOW_US })) {
  const result = parse(line, source, { nowUs: NOW_US });
  if (result.ok) events.push(result.event);
}
const stream = 'logs.edge/0';
const nowUs = () => NOW_US;
const cache = new ProjectCache({ stream, limit: Number.POSITIVE_INFINITY, nowUs });
for (const event of events) cache.add(event.project, knownProject(null, -Infinity, NOW_US, 0));
const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
const admission = new StreamAdmission({ store, stream, cache, nowUs, kind: DIRECT_INGEST });
await admission.load(events);

const admitAll = () => {
  let added = 0;
  for (const event of events) {
    const decided = admission.admit(event, cache.known(event.project));
    if (decided.ok) added += decided.added.length;
  }
  return added;
};

console.log(`admission benchmark: ${environment()}`);
const started = performance.now();
const added = admitAll();
const firstUs = ((performance.now() - started) * 1000) / events.length;
console.log(
  `first pass (keys being admitted): ${firstUs.toFixed(2)} µs per event, ` +
    `${added} keys admitted over ${events.length} events`,
);
const steady = measure(admitAll, events.length);
console.log(
  `steady state (every key known): ${(1e6 / steady.median).toFixed(2)} µs per event ` +
    `(median of ${steady.rounds.length} rounds)`,
);
