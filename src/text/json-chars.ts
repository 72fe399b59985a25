/**
 * The character codes of JSON's structure and whitespace, for the scans that follow JSON text
 * without parsing it (a request body's array elements, a stored event's top-level fields).
 *
 * @module
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

/** Whether `code` is JSON whitespace: space, tab, line feed or carriage return. */
export function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
