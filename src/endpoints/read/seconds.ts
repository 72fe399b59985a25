/**
 * Second buckets from the rollups. The seconds of a minute live in one hash, the minute's hash of
 * seconds, one slot per second (`bucketSuffix` and `bucketSlot` in `src/rollup/keys.ts`), so a
 * `5min` series reads 6 keys instead of 301.
 *
 * A writer of an earlier version kept one key per second (`legacySecondSuffix`), and may still run
 * beside this one during an upgrade. Every writer, of any version, also writes the second's minute
 * bucket in the same atomic commit, so a minute whose hash of seconds counts fewer values than its
 * minute bucket has seconds in the older keys: for that minute those keys are read as well (one
 * more round trip). Both counts are read in the same call, so they agree unless a writer of an
 * earlier version wrote some of the minute's seconds. An event so late that its second had expired
 * is counted in its minute only: that minute's older keys are read, and hold nothing (exact, only
 * slower).
 *
 * @module
 */
import { bucketSlot, bucketSuffix, legacySecondSuffix } from '../../rollup/keys.ts';
import type { RollupStore } from '../../store/port.ts';
import { truncate } from '../../time/grain.ts';

/** What {@link readSeconds} reads: the same seconds in each scope. */
export interface SecondsRead {
  /** Each scope's key of a bucket, from the bucket's key tail. */
  readonly scopes: readonly ((suffix: string) => string)[];
  /** The seconds (each a second's start, µs), ascending. */
  readonly seconds: readonly number[];
  /** How many values a stored part holds (`Aggregate.countOf`). */
  readonly countOf: (part: string) => number;
}

/** The count of `parts`, a part that cannot be read counting nothing (the merge reports it). */
function countAll(parts: readonly string[], countOf: (part: string) => number): number {
  let total = 0;
  for (const part of parts) {
    try {
      total += countOf(part);
    } catch {
      // Unreadable: reported where it is merged.
    }
  }
  return total;
}

/** One minute of the seconds read: its start and the positions of its seconds. */
interface Minute {
  readonly startUs: number;
  readonly from: number;
  to: number;
}

function minutesOf(seconds: readonly number[]): Minute[] {
  const minutes: Minute[] = [];
  seconds.forEach((second, i) => {
    const startUs = truncate(second, 'minute');
    const last = minutes.at(-1);
    if (last?.startUs === startUs) last.to = i + 1;
    else minutes.push({ startUs, from: i, to: i + 1 });
  });
  return minutes;
}

/**
 * Every writer's part of each second of `read.seconds` in each scope: `[scope][second]`, empty
 * where a second has none.
 *
 * @example
 * ```ts
 * const [parts] = await readSeconds(store, {
 *   scopes: [(suffix) => invocationBucketKey(prefix, '*', suffix)],
 *   seconds: series,
 *   countOf: invocationStats.countOf,
 * });
 * ```
 */
export async function readSeconds(store: RollupStore, read: SecondsRead): Promise<string[][][]> {
  const { scopes, seconds, countOf } = read;
  const minutes = minutesOf(seconds);
  const keys: string[] = [];
  for (const scope of scopes) {
    for (const minute of minutes) {
      keys.push(
        scope(bucketSuffix('second', minute.startUs)),
        scope(bucketSuffix('minute', minute.startUs)),
      );
    }
  }
  const hashes = await store.readSlots(keys);
  const out = scopes.map(() => seconds.map((): string[] => []));
  const olderKeys: string[] = [];
  const olderAt: [scope: number, second: number][] = [];
  scopes.forEach((scope, s) => {
    const bySecond = out[s] as string[][];
    minutes.forEach((minute, m) => {
      const at = 2 * (s * minutes.length + m);
      const bySlot = new Map<string, string[]>();
      const slotted: string[] = [];
      for (const { slot, part } of hashes[at] ?? []) {
        if (slot === null) continue;
        slotted.push(part);
        const parts = bySlot.get(slot);
        if (parts === undefined) bySlot.set(slot, [part]);
        else parts.push(part);
      }
      const minuteParts: string[] = [];
      for (const { slot, part } of hashes[at + 1] ?? []) if (slot === null) minuteParts.push(part);
      const older = minuteParts.length > 0 &&
        countAll(slotted, countOf) < countAll(minuteParts, countOf);
      for (let i = minute.from; i < minute.to; i++) {
        const second = seconds[i] as number;
        bySecond[i] = bySlot.get(bucketSlot('second', second) as string) ?? [];
        if (older) {
          olderKeys.push(scope(legacySecondSuffix(second)));
          olderAt.push([s, i]);
        }
      }
    });
  });
  if (olderKeys.length > 0) {
    const olderParts = await store.readBuckets(olderKeys);
    olderAt.forEach(([s, i], k) => {
      const parts = olderParts[k] ?? [];
      if (parts.length > 0) {
        (out[s] as string[][])[i] = [...((out[s] as string[][])[i] ?? []), ...parts];
      }
    });
  }
  return out;
}
