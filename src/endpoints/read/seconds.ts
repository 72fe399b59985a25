/**
 * Second buckets from the rollups. The seconds of a minute live in one hash, the minute's hash of
 * seconds, one slot per second (`bucketSuffix` and `bucketSlot` in `src/rollup/keys.ts`), so a
 * `5min` series reads 6 keys instead of 301.
 *
 * A writer of an earlier version kept one key per second (`perSecondKeySuffix`), and may still run
 * beside this one during an upgrade. Every writer, of any version, also writes the second's minute
 * bucket in the same atomic commit, so a minute whose hash of seconds counts fewer values than its
 * minute bucket has seconds in the older keys: for that minute those keys are read as well (one
 * more round trip). Both counts are read in the same call (a hash and its minute sit side by side
 * in one key group, and reads are cut into calls of an even number of keys), so they agree unless a
 * writer of an earlier version wrote some of the minute's seconds. Of the minute bucket only the
 * head of each part is read, which holds its count (`Aggregate.headCount`), not the whole state.
 * An event so late that its second had expired is counted in its minute only: that minute's older
 * keys are read, and hold nothing (exact, only slower).
 *
 * @module
 */
import { HEAD_COUNT_BYTES } from '../../rollup/aggregate.ts';
import { bucketSuffix, perSecondKeySuffix } from '../../rollup/keys.ts';
import type { HashRead, RollupStore, SlottedPart } from '../../store/port.ts';
import { truncate } from '../../time/grain.ts';

/** What {@link readSeconds} reads: the same seconds in each scope. */
export interface SecondsRead {
  /** Each scope's key of a bucket, from the bucket's key tail. */
  readonly scopes: readonly ((suffix: string) => string)[];
  /** The seconds (each a second's start, µs), ascending. */
  readonly seconds: readonly number[];
  /** How many values a stored part holds, from its head (`Aggregate.headCount`). */
  readonly headCount: (head: Uint8Array) => number | null;
}

/** No parts: shared by every empty second (nothing mutates a list of parts). */
const NO_PARTS: readonly Uint8Array[] = Object.freeze([]);

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
 * Whether a minute has seconds outside its hash of seconds: its hash counts fewer values than its
 * minute bucket, or a minute part's head does not say its count.
 */
function hasOlderSeconds(
  slotted: readonly SlottedPart[],
  minuteHeads: readonly SlottedPart[],
  headCount: (head: Uint8Array) => number | null,
): boolean {
  let minuteTotal = 0;
  for (const { slot, part } of minuteHeads) {
    if (slot !== null) continue;
    const count = headCount(part);
    if (count === null) return true;
    minuteTotal += count;
  }
  if (minuteTotal === 0) return false;
  let secondsTotal = 0;
  // A part whose head does not say counts nothing: the minute then reads the older keys too.
  for (const { slot, part } of slotted) if (slot !== null) secondsTotal += headCount(part) ?? 0;
  return secondsTotal < minuteTotal;
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
 *   headCount: invocationStats.headCount,
 * });
 * ```
 */
export async function readSeconds(
  store: RollupStore,
  read: SecondsRead,
): Promise<(readonly Uint8Array[])[][]> {
  const { scopes, seconds, headCount } = read;
  const minutes = minutesOf(seconds);
  const reads: HashRead[] = [];
  for (const scope of scopes) {
    for (const minute of minutes) {
      reads.push(
        { key: scope(bucketSuffix('second', minute.startUs)) },
        { key: scope(bucketSuffix('minute', minute.startUs)), headBytes: HEAD_COUNT_BYTES },
      );
    }
  }
  const hashes = await store.readSlots(reads);
  const out = scopes.map((): (readonly Uint8Array[])[] => new Array(seconds.length).fill(NO_PARTS));
  const olderKeys: string[] = [];
  const olderAt: [scope: number, second: number][] = [];
  scopes.forEach((scope, s) => {
    const bySecond = out[s] as (readonly Uint8Array[])[];
    minutes.forEach((minute, m) => {
      // Each minute's hash of seconds, then its minute bucket's heads (as `reads` lists them).
      const at = 2 * (s * minutes.length + m);
      const slotted = hashes[at] ?? [];
      // Parts by the second's offset in the minute (the slot).
      const byOffset: Uint8Array[][] = [];
      for (const { slot, part } of slotted) {
        if (slot === null) continue;
        const parts = byOffset[Number(slot)];
        if (parts === undefined) byOffset[Number(slot)] = [part];
        else parts.push(part);
      }
      const older = hasOlderSeconds(
        slotted,
        hashes[at + 1] ?? [],
        headCount,
      );
      for (let i = minute.from; i < minute.to; i++) {
        const second = seconds[i] as number;
        bySecond[i] = byOffset[(second - minute.startUs) / 1_000_000] ?? NO_PARTS;
        if (older) {
          olderKeys.push(scope(perSecondKeySuffix(second)));
          olderAt.push([s, i]);
        }
      }
    });
  });
  if (olderKeys.length > 0) {
    const olderParts = await store.readBuckets(olderKeys);
    olderAt.forEach(([s, i], k) => {
      const parts = olderParts[k] ?? [];
      const bySecond = out[s] as (readonly Uint8Array[])[];
      if (parts.length > 0) bySecond[i] = [...(bySecond[i] ?? NO_PARTS), ...parts];
    });
  }
  return out;
}
