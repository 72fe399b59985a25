/**
 * The ingest sink of the embedded default: folds events straight into the store.
 *
 * @module
 */
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import type { UnreadableReporter } from '../../src/rollup/unreadable.ts';
import type { MemoryBudget } from '../../src/store/memory-budget.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { type IngestSink, NOTHING_REGISTERED } from './sink.ts';

/** Options of {@link directSink}. */
export interface DirectSinkOptions {
  readonly store: RollupStore;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  readonly recentLogsCapacity: number;
  /** How far in the future an accepted event may lie (µs), as the ingest route checks. */
  readonly maxFutureSkewUs?: number;
  /** Told about each stored state that could not be read (and was moved aside). */
  readonly onUnreadable?: UnreadableReporter;
  /**
   * The store's memory budget (the embedded store): a body it has no room for is refused whole,
   * `accept` rejecting with a `StoreFullError`. Default: none.
   */
  readonly budget?: MemoryBudget;
  /** Told how many ring-buffer entries the budget dropped to make room for a body. */
  readonly onRecentLogsDropped?: (entries: number) => void;
}

/**
 * A sink folding into `store`; events are visible to the next read once `accept` resolves.
 *
 * @example
 * ```ts
 * const sink = directSink({ store, nowUs: () => Date.now() * 1000, recentLogsCapacity: 10_000 });
 * await sink.accept('edge', accepted);
 * ```
 */
export function directSink(options: DirectSinkOptions): IngestSink {
  const ingest = new DirectIngest({
    store: options.store,
    nowUs: options.nowUs,
    recentLogsCapacity: options.recentLogsCapacity,
    ...(options.maxFutureSkewUs === undefined ? {} : { maxFutureSkewUs: options.maxFutureSkewUs }),
    ...(options.onUnreadable === undefined ? {} : { onUnreadable: options.onUnreadable }),
    ...(options.budget === undefined ? {} : { budget: counted(options.budget, options) }),
  });
  return {
    kind: 'direct',
    async accept(_source, events) {
      if (events.length === 0) return NOTHING_REGISTERED;
      const { refused, registered } = await ingest.fold(events.map((accepted) => accepted.event));
      return {
        refused: refused.map(({ index, rejection }) => ({
          line: events[index]?.line ?? 0,
          reason: rejection.reason,
        })),
        registered,
      };
    },
    close: () => Promise.resolve(),
  };
}

/** `budget`, telling `onRecentLogsDropped` what it dropped. */
function counted(budget: MemoryBudget, options: DirectSinkOptions): MemoryBudget {
  const told = options.onRecentLogsDropped;
  if (told === undefined) return budget;
  return {
    ensureRoom(incomingBytes) {
      const dropped = budget.ensureRoom(incomingBytes);
      if (dropped > 0) told(dropped);
      return dropped;
    },
  };
}
