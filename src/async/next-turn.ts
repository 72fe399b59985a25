/**
 * Giving other work a turn: long loops on the event loop (matching a pattern against many hosts,
 * redacting large rows) await this between steps, so requests waiting behind them (`/healthz`
 * among them) are served meanwhile. Works alike on Node and Deno.
 *
 * @module
 */

/**
 * Resolves after the timers and I/O waiting now have had their turn.
 *
 * @example
 * ```ts
 * for (const item of items) {
 *   work(item);
 *   await nextTurn();
 * }
 * ```
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/**
 * A function to await between the steps of a long loop: it gives other work a turn once the
 * loop has run `sliceMs` since the last turn, and otherwise resolves at once (a turn costs at
 * least a millisecond, so taking one after every short step would slow the loop down).
 *
 * @example
 * ```ts
 * const turn = turnEvery(10);
 * for (const item of items) {
 *   work(item);
 *   await turn();
 * }
 * ```
 */
export function turnEvery(
  sliceMs: number,
  clockMs: () => number = () => performance.now(),
): () => Promise<void> {
  let sliceStart = clockMs();
  return async () => {
    if (clockMs() - sliceStart < sliceMs) return;
    await nextTurn();
    sliceStart = clockMs();
  };
}
