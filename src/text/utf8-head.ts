/**
 * The head of a text by its UTF-8 bytes, as Redis's `string.sub` cuts a value: a reader that
 * asks a store for the first bytes of each value gets the same text from every store.
 *
 * @module
 */

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * The first `bytes` bytes of `text` in UTF-8 (a head cut inside a character ends in U+FFFD).
 *
 * @example
 * ```ts
 * utf8Head('{"n":12,"rest"}', 6); // '{"n":1'
 * utf8Head('aé€x', 4); // 'aé\uFFFD'
 * ```
 */
export function utf8Head(text: string, bytes: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8.
  if (text.length * 3 <= bytes) return text;
  // Where the first `bytes` characters are ASCII, they are the first `bytes` bytes.
  const head = text.slice(0, bytes);
  if (isAscii(head)) return head;
  return fromUtf8.decode(utf8.encode(text).subarray(0, bytes));
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}
