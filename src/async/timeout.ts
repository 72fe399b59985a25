/**
 * A bound on how long a caller waits for work it cannot cancel (a store call, a broker
 * request): past it, the caller goes on with what `late` gives, and the work's own outcome is
 * ignored.
 *
 * @module
 */

/**
 * `work`'s outcome, or `late()`'s (which may throw) once `ms` have passed.
 *
 * @example
 * ```ts
 * const lags = await withTimeout(runner.lag(), 2_000, () => null);
 * ```
 */
export async function withTimeout<T, U>(
  work: Promise<T>,
  ms: number,
  late: () => U,
): Promise<T | U> {
  const LATE = Symbol('late');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  try {
    const outcome = await Promise.race([work, expired]);
    return outcome === LATE ? late() : outcome as T;
  } finally {
    clearTimeout(timer);
  }
}
