/**
 * Compares two strings in the order of their UTF-8 bytes, which is the order Redis keeps members
 * of equal score in. JavaScript's `<` compares UTF-16 code units instead, which differs for
 * characters beyond U+FFFF; comparing code points matches UTF-8 byte order exactly.
 *
 * @example
 * ```ts
 * ['b', 'a'].sort(compareUtf8); // ['a', 'b']
 * ```
 *
 * @module
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800..U+DFFF) starts a code point above U+FFFF, which sorts after every
    // BMP character in UTF-8.
    const xHigh = x >= 0xd800 && x <= 0xdfff;
    const yHigh = y >= 0xd800 && y <= 0xdfff;
    if (xHigh !== yHigh) return xHigh ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
