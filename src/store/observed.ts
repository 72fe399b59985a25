/**
 * A {@link RollupStore} that tells an observer how each call went: how long it took, whether it
 * failed, which project commits and resume offsets the store refused, and how many parts a writer
 * read back. The store itself knows no metrics library: the process that opens the store hands
 * an observer (the consumers' and the API's Prometheus metrics, in `service/`). Calls are named
 * by the port's method (a fixed set), never by key or project.
 *
 * @example
 * ```ts
 * const store = observedStore(opened.store, {
 *   command: (command, seconds, failed) => console.log(command, seconds, failed),
 *   refused: (reason) => console.log('refused', reason),
 *   partsRead: (parts) => console.log(parts, 'parts read'),
 * });
 * ```
 *
 * @module
 */
import { type WriteRefusal, writeRefusalOf } from './write-refusal.ts';
import type { CommitResult, RollupStore } from './port.ts';

/** The port's calls, as the observer names them. */
export const STORE_COMMANDS = [
  'commitProject',
  'readWatermarks',
  'readReaches',
  'readParts',
  'readBuckets',
  'readSlots',
  'readOffset',
  'advanceOffset',
  'updateSortedSet',
  'rangeByScore',
  'membersSince',
  'ping',
] as const;

/** One of {@link STORE_COMMANDS}. */
export type StoreCommand = (typeof STORE_COMMANDS)[number];

/**
 * Why the store refused a write: a project's watermark was not the expected one (`watermark`),
 * the stream's resume offset had moved (`resume`; a commit's check, or `advanceOffset`'s), or a
 * part taken for new was found (`part_found`). Each means another writer took the stream, or the
 * store lost or rolled back data.
 */
export type RefusalReason = 'watermark' | 'resume' | 'part_found';

/** Every {@link RefusalReason}. */
export const REFUSAL_REASONS: readonly RefusalReason[] = ['watermark', 'resume', 'part_found'];

/** What {@link observedStore} reports. */
export interface StoreObserver {
  /** One call ended after `seconds`: answered, or `failed` (rejected). */
  command(command: StoreCommand, seconds: number, failed: boolean): void;
  /** The store refused a project commit or a resume offset's move. */
  refused(reason: RefusalReason): void;
  /** A writer read back `parts` of its own parts it did not hold (after a reopen, an eviction). */
  partsRead(parts: number): void;
  /** A write was refused by a store that answers (full, read-only, ...: src/store/write-refusal.ts). */
  writeRefused?(reason: WriteRefusal, command: StoreCommand): void;
  /** A write was made. */
  writeAccepted?(command: StoreCommand): void;
}

function refusalOf(result: CommitResult): RefusalReason | null {
  if (result.outcome === 'applied') return null;
  if (result.outcome === 'part-found') return 'part_found';
  return result.outcome === 'resume-moved' ? 'resume' : 'watermark';
}

/**
 * `store` with every call reported to `observer`; `close` is passed through unobserved.
 * `nowMs` is a monotonic clock in ms (default `performance.now`).
 */
export function observedStore(
  store: RollupStore,
  observer: StoreObserver,
  nowMs: () => number = () => performance.now(),
): RollupStore {
  const timed = async <T>(command: StoreCommand, call: () => Promise<T>): Promise<T> => {
    const started = nowMs();
    try {
      const result = await call();
      observer.command(command, (nowMs() - started) / 1000, false);
      return result;
    } catch (error) {
      observer.command(command, (nowMs() - started) / 1000, true);
      throw error;
    }
  };
  /** A write call: its refusal, or its being made, is reported too. */
  const written = async <T>(command: StoreCommand, call: () => Promise<T>): Promise<T> => {
    try {
      const result = await timed(command, call);
      observer.writeAccepted?.(command);
      return result;
    } catch (error) {
      const refusal = writeRefusalOf(error);
      if (refusal !== null) observer.writeRefused?.(refusal, command);
      throw error;
    }
  };
  return {
    commitProject: async (commit) => {
      const result = await written('commitProject', () => store.commitProject(commit));
      const reason = refusalOf(result);
      if (reason !== null) observer.refused(reason);
      return result;
    },
    readWatermarks: (keys, stream) =>
      timed('readWatermarks', () => store.readWatermarks(keys, stream)),
    readReaches: (keys, stream) => timed('readReaches', () => store.readReaches(keys, stream)),
    readParts: (parts, stream) => {
      observer.partsRead(parts.length);
      return timed('readParts', () => store.readParts(parts, stream));
    },
    readBuckets: (keys) => timed('readBuckets', () => store.readBuckets(keys)),
    readSlots: (reads) => timed('readSlots', () => store.readSlots(reads)),
    readOffset: (key) => timed('readOffset', () => store.readOffset(key)),
    advanceOffset: async (key, expected, next) => {
      const moved = await written('advanceOffset', () => store.advanceOffset(key, expected, next));
      if (!moved) observer.refused('resume');
      return moved;
    },
    updateSortedSet: (write) => written('updateSortedSet', () => store.updateSortedSet(write)),
    rangeByScore: (key, range) => timed('rangeByScore', () => store.rangeByScore(key, range)),
    membersSince: (key, minScore) => timed('membersSince', () => store.membersSince(key, minScore)),
    ping: () => timed('ping', () => store.ping()),
    close: () => store.close(),
  };
}
