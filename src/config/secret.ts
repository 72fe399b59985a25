/**
 * A secret setting (a password, a token, a private key): its value is read only through
 * {@link Secret.reveal}, where a client is handed it. Printed, logged or serialized, it shows
 * `[secret]`: a configuration object logged whole never leaks one.
 *
 * @example
 * ```ts
 * const password = new Secret('s3cret');
 * JSON.stringify({ password }); // '{"password":"[secret]"}'
 * password.reveal(); // 's3cret'
 * ```
 *
 * @module
 */

const SHOWN = '[secret]';

/** A value never shown by printing, logging or serializing its holder. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The value, for the client that needs it; never for a log line or a message. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return SHOWN;
  }

  toJSON(): string {
    return SHOWN;
  }

  /** What Node's `util.inspect` (console.log) shows. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return SHOWN;
  }

  /** What Deno's `Deno.inspect` (console.log) shows. */
  [Symbol.for('Deno.customInspect')](): string {
    return SHOWN;
  }
}
