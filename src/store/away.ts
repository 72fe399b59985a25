/**
 * Tells a store that is away (not connected: every call fails at once until it is back) from a
 * call that went wrong. The first is said once, without a stack, by whoever waits for the store;
 * the second is logged whole.
 *
 * @module
 */

/**
 * Whether `error` says the store is not connected, rather than that a call went wrong. A Redis
 * that answers but cannot serve yet counts as away too: a cluster without a master for some slots
 * (`CLUSTERDOWN`, `TRYAGAIN` while they move, `MASTERDOWN` on a replica that lost its master) and
 * one loading its data set (`LOADING`) all pass once a failover or a restart has settled.
 *
 * @example
 * ```ts
 * isStoreAway(new Error('connect ECONNREFUSED 127.0.0.1:6379')); // true
 * ```
 */
export function isStoreAway(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /^Client(Offline|Closed)Error$/.test(error.name) ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|not been reached yet|client is (offline|closed)|Socket closed unexpectedly/i
      .test(error.message) ||
    /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING)\b/.test(error.message);
}

/**
 * A store call that did not answer within its bound: the store is slow or unreachable while its
 * connection may look up. Said like a store that is away (one outage line, never a stack per call),
 * and over once a call answers.
 *
 * @example
 * ```ts
 * await withTimeout(store.ping(), 2_000, (): never => {
 *   throw new StoreTimeoutError(2_000);
 * });
 * ```
 */
export class StoreTimeoutError extends Error {
  /** `call` names the store call that timed out (a port method), when known. */
  constructor(ms: number, call?: string) {
    super(`the store did not answer${call === undefined ? '' : ` ${call}`} within ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}
