/**
 * The UTF-8 length of text, without encoding it: sizes are counted in bytes everywhere (a limit
 * on a string's UTF-16 length would let three times as many bytes through).
 *
 * @module
 */

/**
 * How many bytes `text` takes in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD, as
 * `TextEncoder` writes it).
 *
 * @example
 * ```ts
 * utf8Length('abc'); // 3
 * utf8Length('漢'); // 3
 * utf8Length('😀'); // 4
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
