/**
 * Polling a readiness probe with a deadline.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../../src/text/error-message.ts';

/** Options of {@link waitUntilReady}. */
export interface WaitOptions {
  /** Give up after this long. */
  readonly timeoutMs: number;
  /** Pause between two probes. Default 250 ms. */
  readonly intervalMs?: number;
  /**
   * Checked before every probe: a reason string stops the wait at once (the process died, no
   * point waiting out the deadline); undefined lets it go on.
   */
  readonly failFast?: () => Promise<string | undefined> | string | undefined;
}

/**
 * Calls `probe` until it resolves. Rejects with the last probe error when `timeoutMs` passes,
 * or with the `failFast` reason as soon as there is one.
 *
 * @example
 * ```ts
 * await waitUntilReady(() => probeRedis(url), { timeoutMs: 10_000 });
 * ```
 */
export async function waitUntilReady(
  probe: () => Promise<void>,
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const reason = await options.failFast?.();
    if (reason !== undefined) throw new Error(reason);
    try {
      await probe();
      return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `not ready after ${Math.round(options.timeoutMs / 1000)} s (last probe: ${
          messageOf(lastError)
        })`,
        { cause: lastError },
      );
    }
    await sleep(options.intervalMs ?? 250);
  }
}
