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
export function withTimeout<T, U>(
  work: Promise<T>,
  ms: number,
  late: () => U,
): Promise<T | U> {
  // One promise settled by whichever comes first (the later one changes nothing): half the cost
  // of a race of two, which every store call of an answer pays.
  return new Promise<T | U>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
