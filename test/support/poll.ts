/**
 * Waiting for a service to reach a state (a free port for one: tools/services/free-port.ts).
 *
 * @module
 */
import { messageOf } from '../../src/text/error-message.ts';

/**
 * Polls `probe` until it answers a value (not null, not a rejection), or throws after
 * `timeoutMs` saying what it waited for, and why the last probe that rejected did (a probe that
 * throws what it saw makes the failure say it).
 */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let rejection: unknown = null;
  for (;;) {
    const value = await probe().catch((error: unknown) => {
      rejection = error;
      return null;
    });
    if (value !== null) return value;
    if (Date.now() > deadline) {
      const why = rejection === null ? '' : `; the last probe: ${messageOf(rejection)}`;
      throw new Error(`waited ${timeoutMs} ms for ${what}${why}`, {
        cause: rejection ?? undefined,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
