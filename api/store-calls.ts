/**
 * Where the cause of a store call the API answered 503 goes. A store that is away (every call
 * fails at once until it is back) is one outage, said in the store's {@link OutageLog}: once when
 * it goes, then every half minute with how many calls failed meanwhile, never a stack per call.
 * Calls that time out are an outage of their own (the connection may be up: a slow or stuck
 * store), said alike and over once a call answers. Any other failure is logged whole.
 *
 * @example
 * ```ts
 * const calls = reportStoreCalls({ logger, nowMs: Date.now });
 * const rows = await guardStore(readRows(), 5_000, calls);
 * ```
 *
 * @module
 */
import { OutageLog } from '../src/async/outage-log.ts';
import type { Logger } from '../src/logger.ts';
import { isStoreAway, StoreTimeoutError } from '../src/store/away.ts';

/** Told of each guarded store call's outcome. */
export interface StoreCalls {
  /** A call failed with `error` (answered 503). */
  failed(error: unknown): void;
  /** A call answered. */
  answered(): void;
}

/** Options of {@link reportStoreCalls}. */
export interface StoreCallsOptions {
  readonly logger: Logger;
  /** The clock, in Unix ms. */
  readonly nowMs: () => number;
  /**
   * The outage log of the store's connection, which its owner tells when the store is back.
   * Default: one of the API's own, told the store is back when a call answers.
   */
  readonly outage?: OutageLog;
}

/** The outcome of store calls, logged as {@link StoreCallsOptions} says. */
export function reportStoreCalls(options: StoreCallsOptions): StoreCalls {
  const { logger } = options;
  // Told the store is back when a call answers (an answer may come from a cache meanwhile).
  const answers = new OutageLog({ logger, what: 'the store', nowMs: options.nowMs });
  // A connection's owner knows when it is back.
  const connection = options.outage ?? answers;
  return {
    failed: (error) => {
      if (error instanceof StoreTimeoutError) answers.failed(error);
      else if (isStoreAway(error)) connection.failed(error);
      else logger.warn({ err: error }, 'store call failed');
    },
    answered: () => answers.recovered(),
  };
}
