/**
 * A {@link RollupStore} whose every call gives up after a deadline with a
 * {@link StoreTimeoutError}. A Redis that stops answering (its process stopped, `CLIENT PAUSE`,
 * a network that drops packets without closing the connection) otherwise holds a caller for as
 * long as it is away: a consumer's batch that waits that long stops heartbeating and is evicted
 * from its group.
 *
 * Once a call has timed out, nothing more is sent until the store answers a ping (one ping in
 * flight, shared by every caller, each waiting for it up to the deadline): a store stalled for
 * hours would otherwise queue every retry's commands in its client, without bound, to be sent at
 * once when it wakes. A call that answers, or the ping, ends the stall.
 *
 * The call itself cannot be cancelled: it may still apply once the store answers again. Every
 * write the consumers make is fenced for that (a project commit by the project's watermark and
 * the stream's resume offset, a resume offset's move by compare-and-set, the ring buffers and
 * the host registry idempotent), so a write that applied after its caller gave up is found at
 * the retry (its events are skipped as already held) and never applied twice.
 *
 * @example
 * ```ts
 * const bounded = storeWithDeadline(store, 5_000, {
 *   timedOut: (error) => outage.failed(error),
 *   answered: () => outage.recovered(),
 * });
 * ```
 *
 * @module
 */
import { withTimeout } from '../async/timeout.ts';
import { StoreTimeoutError } from './away.ts';
import type { StoreCommand } from './observed.ts';
import type { RollupStore } from './port.ts';

/** What {@link storeWithDeadline} reports. */
export interface DeadlineObserver {
  /** A call did not answer within the deadline (its caller got `error`). */
  timedOut(error: StoreTimeoutError): void;
  /** A call answered within the deadline. */
  answered(): void;
}

const SILENT: DeadlineObserver = { timedOut: () => undefined, answered: () => undefined };

/** `store` with every call bounded by `ms`; `close` is passed through unbounded. */
export function storeWithDeadline(
  store: RollupStore,
  ms: number,
  observer: DeadlineObserver = SILENT,
): RollupStore {
  /** A call timed out and nothing has answered since: callers wait for {@link probe} first. */
  let stalled = false;
  /** The ping sent since the stall began, until it settles: never more than one. */
  let ping: Promise<unknown> | null = null;
  const timeout = (command: StoreCommand) => (): never => {
    throw new StoreTimeoutError(ms, command);
  };
  const probe = async (): Promise<void> => {
    if (ping === null) {
      const sent = store.ping();
      ping = sent;
      // Settled late (after every waiter gave up), its outcome is nobody's: only the slot frees.
      sent.then(() => (stalled = false), () => undefined).finally(() => (ping = null));
    }
    await withTimeout(ping, ms, timeout('ping'));
    stalled = false;
  };
  const bounded = async <T>(command: StoreCommand, call: () => Promise<T>): Promise<T> => {
    try {
      if (stalled) await probe();
      const result = await withTimeout(call(), ms, timeout(command));
      stalled = false;
      observer.answered();
      return result;
    } catch (error) {
      // Any other failure (the connection refused, say) is its owner's to report.
      if (error instanceof StoreTimeoutError) {
        stalled = true;
        observer.timedOut(error);
      }
      throw error;
    }
  };
  return {
    commitProject: (commit) => bounded('commitProject', () => store.commitProject(commit)),
    readWatermarks: (keys, stream) =>
      bounded('readWatermarks', () => store.readWatermarks(keys, stream)),
    readReaches: (keys, stream) => bounded('readReaches', () => store.readReaches(keys, stream)),
    readParts: (parts, stream) => bounded('readParts', () => store.readParts(parts, stream)),
    readBuckets: (keys) => bounded('readBuckets', () => store.readBuckets(keys)),
    readSlots: (reads) => bounded('readSlots', () => store.readSlots(reads)),
    readOffset: (key) => bounded('readOffset', () => store.readOffset(key)),
    advanceOffset: (key, expected, next) =>
      bounded('advanceOffset', () => store.advanceOffset(key, expected, next)),
    updateSortedSet: (write) => bounded('updateSortedSet', () => store.updateSortedSet(write)),
    rangeByScore: (key, range) => bounded('rangeByScore', () => store.rangeByScore(key, range)),
    membersSince: (key, minScore) =>
      bounded('membersSince', () => store.membersSince(key, minScore)),
    ping: () => bounded('ping', () => store.ping()),
    close: () => store.close(),
  };
}
