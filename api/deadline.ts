/**
 * A bound on how long the API waits for the store or Kafka: past it, the caller gets 503
 * `unavailable` (with `Retry-After`) instead of a request that hangs.
 *
 * @module
 */
import { withTimeout } from '../src/async/timeout.ts';
import { StoreTimeoutError } from '../src/store/away.ts';
import { NewerStateFormatError } from '../src/rollup/state-format.ts';
import { HttpError, unavailable } from './errors.ts';
import type { StoreCalls } from './store-calls.ts';

/**
 * `work`, or a 503 `unavailable` naming `what` once `ms` have passed.
 *
 * @example
 * ```ts
 * await withDeadline(store.ping(), 2_000, 'the store');
 * ```
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return withTimeout(work, ms, (): never => {
    throw unavailable(`${what} did not answer within ${ms} ms; retry shortly`);
  });
}

/** What a caller is told of a failed store call. */
function failureMessage(error: unknown): string {
  if (error instanceof StoreTimeoutError) return `${error.message}; retry shortly`;
  if (error instanceof NewerStateFormatError) {
    return 'this replica cannot read states a newer version of the service wrote (it is being ' +
      'upgraded); retry shortly';
  }
  return 'the store is not answering; retry shortly';
}

/**
 * `work` (a store call), with its failure answered as 503 `unavailable`: past `ms`, or when
 * it rejects, also when it meets a state in a newer version's format (the cause, a
 * {@link StoreTimeoutError} past `ms`, goes to `calls`, never to the caller).
 *
 * @example
 * ```ts
 * const rows = await guardStore(readRows(), 5_000, reportStoreCalls({ logger, nowMs: Date.now }));
 * ```
 */
export async function guardStore<T>(work: Promise<T>, ms: number, calls: StoreCalls): Promise<T> {
  let answer: T;
  try {
    answer = await withTimeout(work, ms, (): never => {
      throw new StoreTimeoutError(ms);
    });
  } catch (error) {
    if (error instanceof HttpError) throw error;
    calls.failed(error);
    throw unavailable(failureMessage(error), { cause: error });
  }
  calls.answered();
  return answer;
}
