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
