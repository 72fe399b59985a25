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
import { parse } from '../../src/events/parse.ts';
import type { Source } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { commitProjectCall } from '../../src/store/scripts.ts';
import { sortedSetCommands } from '../../src/store/sorted-set-commands.ts';
import type { ProjectCommit, RollupStore } from '../../src/store/port.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { environment, rate } from './measure.ts';

const NOW_US = 1_795_256_130_000_000;
const EVENTS = 100_000;
const PARTITIONS = 12;
const FLUSH_EVENTS = 3_000;
const ROUNDS = 5;

const encoder = new TextEncoder();
const lines = [...generateEvents({ seed: 1, events: EVENTS, nowUs: NOW_US })].map((
  { source, line },
) => ({ source, bytes: encoder.encode(line) }));

/** A store that keeps nothing: a write only builds the arguments the Redis store would send. */
function emptyStore(onArguments: (count: number) => void): RollupStore {
  const nothing = () => Promise.resolve([]);
  return {
    commitProject(commit: ProjectCommit) {
      onArguments(commitProjectCall(commit, true).args.length);
      return Promise.resolve({ applied: true });
    },
    readWatermarks: (keys) => Promise.resolve(keys.map(() => null)),
    readReaches: (keys) => Promise.resolve(keys.map(() => null)),
    readParts: (parts) => Promise.resolve(parts.map(() => null)),
    readBuckets: (keys) => Promise.resolve(keys.map(() => [])),
    readSlots: (reads) => Promise.resolve(reads.map(() => [])),
    readOffset: () => Promise.resolve(null),
    advanceOffset: () => Promise.resolve(true),
    // The ring buffers are written here, as the commands RedisStore sends.
    updateSortedSet(write) {
      for (const command of sortedSetCommands(write)) onArguments(command.length);
      return Promise.resolve();
    },
    rangeByScore: nothing,
    membersSince: nothing,
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

interface Partition {
  readonly writer: PartitionWriter;
  readonly fold: Fold;
  folded: number;
}

async function round(store: RollupStore): Promise<number> {
  const partitions = new Map<string, Partition>();
  let offset = 0;
  let valid = 0;
  for (const { source, bytes } of lines) {
    const stream = `${source}/${offset % PARTITIONS}`;
    let partition = partitions.get(stream);
    if (partition === undefined) {
      partition = {
        writer: new PartitionWriter({ store, stream, nowUs: () => NOW_US }),
        fold: new Fold(stream),
        folded: 0,
      };
      await partition.writer.open();
      partitions.set(stream, partition);
    }
    const result = parse(bytes, source as Source, { nowUs: NOW_US });
    if (result.ok) {
      // As the processor does once per batch: only projects not seen yet are read.
      if (partition.writer.watermark(result.event.project) === undefined) {
        await partition.writer.loadWatermarks([result.event.project]);
      }
      partition.fold.add(result.event, offset, NOW_US);
      valid += 1;
    }
    offset += 1;
    partition.folded += 1;
    if (partition.fold.size >= FLUSH_EVENTS) {
      await partition.writer.flush(partition.fold.take(), partition.folded);
    }
  }
  for (const partition of partitions.values()) {
    if (partition.fold.size > 0) {
      await partition.writer.flush(partition.fold.take(), partition.folded);
    }
  }
  return valid;
}

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
