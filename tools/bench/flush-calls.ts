/**
 * The longest store call of a consumer's flush (`npm run bench:flush-calls`), on a Redis of its
 * own: what the consumers' store deadline (`STORE_TIMEOUT_MS`) must leave room for. The worst
 * case is one hot project: a flush's events all go to one commit script (a script may touch one
 * hash slot only) and one ring-buffer write.
 *
 * Method: generated events (seed 1, the last hour, one project) parsed and folded into one flush
 * of each size, written through the real `PartitionWriter` and `RedisStore` into an emptied Redis,
 * twice (the second flush of a size merges into the parts the first wrote); every store call is
 * timed (`observedStore`), and the longest of each kind printed with the flush's message bytes.
 *
 * @module
 */
import { toolArgs } from '../tool-args.ts';
import { parse } from '../../src/events/parse.ts';
import type { Source } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { observedStore, type StoreCommand } from '../../src/store/observed.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { startOwnRedis, stopOwnRedis } from '../services/own-redis.ts';
import { environment } from './measure.ts';

const { values } = toolArgs(import.meta.url, {
  options: { sizes: { type: 'string', default: '5000,50000,200000' } },
});
const SIZES = (values.sizes ?? '').split(',').map(Number);
if (!SIZES.every((size) => Number.isInteger(size) && size > 0)) {
  console.error('--sizes must be positive integers, comma-separated');
  process.exit(2);
}

console.log(environment());
const redis = await startOwnRedis('bench-flush-calls');
try {
  const store = await RedisStore.connect(redis.address);
  const longest = new Map<StoreCommand, number>();
  const observed = observedStore(store, {
    command: (command, seconds) => {
      longest.set(command, Math.max(longest.get(command) ?? 0, seconds * 1000));
    },
    refused: () => undefined,
    partsRead: () => undefined,
  });
  const nowUs = Date.now() * 1000;
  console.log(
    '| flush (events) | message bytes | flush | longest commitProject | longest updateSortedSet | longest other |',
  );
  console.log(
    '| -------------- | ------------- | ----- | --------------------- | ----------------------- | ------------- |',
  );
  for (const size of SIZES) {
    const stream = `bench-${size}/0`;
    const writer = new PartitionWriter({
      store: observed,
      stream,
      nowUs: () => nowUs,
      earliestOffset: () => Promise.resolve(0),
    });
    await writer.open();
    let offset = 0;
    for (const round of [1, 2]) {
      longest.clear();
      const fold = new Fold(stream);
      let bytes = 0;
      for (
        const { source, line } of generateEvents({ seed: round, events: size, nowUs, projects: 1 })
      ) {
        const encoded = new TextEncoder().encode(line);
        const result = parse(encoded, source as Source, { nowUs });
        if (!result.ok) continue;
        bytes += encoded.length;
        fold.add(result.event, offset, nowUs);
        offset += 1;
      }
      const delta = fold.take();
      await writer.loadWatermarks(delta.projects.keys());
      const started = performance.now();
      await writer.flush(delta, offset);
      const flushMs = performance.now() - started;
      const other = Math.max(
        0,
        ...[...longest].filter(([c]) => c !== 'commitProject' && c !== 'updateSortedSet')
          .map(([, ms]) => ms),
      );
      const ms = (value: number | undefined) => `${(value ?? 0).toFixed(0)} ms`;
      console.log(
        `| ${size.toLocaleString('en')} (${round === 1 ? 'new parts' : 'merged'}) | ` +
          `${(bytes / 1024 / 1024).toFixed(1)} MiB | ${ms(flushMs)} | ` +
          `${ms(longest.get('commitProject'))} | ${ms(longest.get('updateSortedSet'))} | ${
            ms(other)
          } |`,
      );
    }
  }
  await store.close();
} finally {
  await stopOwnRedis(redis);
}
