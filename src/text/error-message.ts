/**
 * What an error says, for a log line or a message that wraps it: its message without the stack,
 * the messages of every error an `AggregateError` holds (a connection tried on several addresses
 * fails with one per address and an empty message of its own), or the thrown value as text.
 *
 * @example
 * ```ts
 * messageOf(new Error('connect ECONNREFUSED 127.0.0.1:6379')); // 'connect ECONNREFUSED 127.0.0.1:6379'
 * messageOf('stopped'); // 'stopped'
 * ```
 *
 * @module
 */

/** The message of `error`, without its stack. */
export function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(messageOf).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
