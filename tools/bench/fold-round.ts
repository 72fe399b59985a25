/**
 * A consumer's own CPU work over generated events, without Kafka and Redis: parse, fold, and per
 * flush the writer's merge and serialization plus the commit scripts' arguments. Shared by
 * `bench:fold` (its rate) and `bench:metrics` (the same work with the metrics on and off).
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

/** The clock of the generated events. */
export const NOW_US = 1_795_256_130_000_000;

/** Partitions per source the events are spread over, by index. */
const PARTITIONS = 12;

/** One generated line as a consumer receives it. */
export interface FoldLine {
  readonly source: string;
  readonly bytes: Uint8Array;
}

/** `events` generated events (seed 1, last hour, 1000 projects, Zipf) as UTF-8 bytes. */
export function foldLines(events: number): FoldLine[] {
  const encoder = new TextEncoder();
  return [...generateEvents({ seed: 1, events, nowUs: NOW_US })].map(({ source, line }) => ({
    source,
    bytes: encoder.encode(line),
  }));
}

/** A store that keeps nothing: a write only builds the arguments the Redis store would send. */
export function emptyStore(onArguments: (count: number) => void): RollupStore {
  const nothing = () => Promise.resolve([]);
  return {
    commitProject(commit: ProjectCommit) {
      onArguments(commitProjectCall(commit, true).args.length);
      return Promise.resolve({ outcome: 'applied' });
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

/** What a round tells of each flush: its stream and events, and of each event its line. */
export interface RoundHooks {
  readonly onEvent?: (line: FoldLine) => void;
  readonly onFlush?: (stream: string, events: number) => void;
}

interface Partition {
  readonly writer: PartitionWriter;
  readonly fold: Fold;
  folded: number;
}

/**
 * Folds `lines` over 12 partitions per source, each flushing every `flushEvents` events into
 * `store`; resolves with the number of valid events.
 */
export async function foldRound(
  store: RollupStore,
  lines: readonly FoldLine[],
  flushEvents: number,
  hooks: RoundHooks = {},
): Promise<number> {
  const partitions = new Map<string, Partition>();
  const flush = async (stream: string, partition: Partition) => {
    const delta = partition.fold.take();
    await partition.writer.flush(delta, partition.folded);
    hooks.onFlush?.(stream, delta.events);
  };
  let offset = 0;
  let valid = 0;
  for (const line of lines) {
    const stream = `${line.source}/${offset % PARTITIONS}`;
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
    hooks.onEvent?.(line);
    const result = parse(line.bytes, line.source as Source, { nowUs: NOW_US });
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
    if (partition.fold.size >= flushEvents) await flush(stream, partition);
  }
  for (const [stream, partition] of partitions) {
    if (partition.fold.size > 0) await flush(stream, partition);
  }
  return valid;
}
