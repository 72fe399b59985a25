/**
 * The text of a written argument or sorted-set member ({@link WrittenMember}): stores that keep or
 * send text (the embedded store, Upstash's REST API) decode the bytes Redis's own client sends as
 * they are.
 *
 * @module
 */
import type { WrittenMember } from './port.ts';

const UTF8 = new TextDecoder();

/**
 * `value` as text: itself, or its bytes decoded as UTF-8.
 *
 * @example
 * ```ts
 * memberText(new TextEncoder().encode('a\u0000{}')); // 'a\u0000{}'
 * ```
 */
export function memberText(value: WrittenMember['member']): string {
  return typeof value === 'string' ? value : UTF8.decode(value);
}

/** `args` with every argument as text (the array itself when all already are). */
export function argumentsText(args: readonly WrittenMember['member'][]): string[] {
  return args.every((arg) => typeof arg === 'string') ? args as string[] : args.map(memberText);
}
