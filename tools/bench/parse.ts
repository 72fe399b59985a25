/**
 * Benchmark of `parse` (src/events/parse.ts), which runs on every ingested event.
 *
 *   npm run bench:parse
 *
 * Method: 10,000 valid synthetic events per source (seed 1, about 1 KB each, varied as real
 * traffic is), encoded to UTF-8 bytes as a Kafka consumer receives them. Each round parses all
 * of them once; one warm-up round, then 7 timed rounds; the median rate is printed. A second
 * figure repeats one ~1 KB event (the contract's example, enlarged with realistic headers) to show
 * the best case. Single thread.
 *
 * @module
 */

import { parse } from '../../src/events/parse.ts';
import type { Source } from '../../src/events/types.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { environment, measure, rate } from './measure.ts';
import { withoutFlags } from '../tool-args.ts';

withoutFlags(import.meta.url);

const NOW_US = 1_795_256_130_000_000;
const PER_SOURCE = 10_000;
const ROUNDS = 7;

const encoder = new TextEncoder();
const samples: Record<Source, Uint8Array[]> = { edge: [], 'function-edge': [] };
// Half the events of each source, so that 4 * PER_SOURCE lines are plenty for both.
const stream = generateEvents({ seed: 1, events: PER_SOURCE * 4, nowUs: NOW_US, edgeShare: 0.5 });
for (const { source, line } of stream) {
  const list = samples[source];
  if (list.length < PER_SOURCE) list.push(encoder.encode(line));
}

console.log(`parse benchmark: ${environment()}`);
for (const source of ['edge', 'function-edge'] as const) {
  const events = samples[source];
  const bytes = events.reduce((sum, event) => sum + event.byteLength, 0);
  const mixed = measure(
    () => {
      let ok = 0;
      for (const event of events) if (parse(event, source, { nowUs: NOW_US }).ok) ok++;
      if (ok !== events.length) {
        throw new Error(`${events.length - ok} sample events were rejected`);
      }
      return ok;
    },
    events.length,
    ROUNDS,
  );
  const first = events[0];
  if (first === undefined) throw new Error(`no ${source} sample was generated`);
  const single = measure(
    () => {
      let ok = 0;
      for (let i = 0; i < events.length; i++) if (parse(first, source, { nowUs: NOW_US }).ok) ok++;
      return ok;
    },
    events.length,
    ROUNDS,
  );
  console.log(
    `${source.padEnd(13)} ${events.length} events, mean ${Math.round(bytes / events.length)} B: ` +
      `${rate(mixed.median)} (${(mixed.median * bytes / events.length / 1e6).toFixed(0)} MB/s); ` +
      `one ${first.byteLength} B event repeated: ${rate(single.median)}`,
  );
}
