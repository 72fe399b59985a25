/**
 * Retrying a start-up step (connecting to the store, ensuring the topics, joining the group)
 * until it succeeds or the process stops: a service started before its broker or its Redis waits
 * for them instead of exiting, and says why it waits.
 *
 * @module
 */

/** Options of {@link retryUntilDone}. */
export interface RetryOptions {
  /** First pause after a failure, in ms; doubled after each further failure. Default 250. */
  readonly initialMs?: number;
  /** Longest pause, in ms. Default 5,000. */
  readonly maxMs?: number;
  /** Stops the retries: the call then rejects with the signal's reason. */
  readonly signal: AbortSignal;
  /** Told of each failure, with the attempt number (1 first) and the pause before the next. */
  readonly onFailure: (error: unknown, attempt: number, pauseMs: number) => void;
}

/** Resolves after `ms`, or rejects with `signal`'s reason once it aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `attempt()`, called again after a growing pause until it resolves; rejects only when `signal`
 * aborts.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * await retryUntilDone(() => ensureTopics(admin), {
 *   signal: stop.signal,
 *   onFailure: (error, n, ms) => logger.warn({ err: error }, `topics not ready; retry ${n} in ${ms} ms`),
 * });
 * ```
 */
export async function retryUntilDone<T>(
  attempt: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const initial = options.initialMs ?? 250;
  const max = options.maxMs ?? 5_000;
  for (let failures = 1;; failures++) {
    if (options.signal.aborted) throw options.signal.reason;
    try {
      return await attempt();
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      const pauseMs = Math.min(max, initial * 2 ** Math.min(failures - 1, 20));
      options.onFailure(error, failures, pauseMs);
      await pause(pauseMs, options.signal);
    }
  }
}
