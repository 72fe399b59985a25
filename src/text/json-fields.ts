/**
 * Where the values of chosen top-level fields lie in the text of a JSON object, found by one
 * linear scan without building the object: a stored event can then be answered by copying the
 * text of its fields instead of parsing and serializing it again.
 *
 * @module
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-chars.ts';

/** Where one value lies: `text.slice(start, end)` is its JSON text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the string literal opening at `at`; -1 when it does not end. */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** The index after the value starting at `at`; -1 when it is cut short. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let i = at;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isJsonSpace(code)) {
        break;
      }
      i++;
    }
    return i > at ? i : -1;
  }
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i);
      if (i === -1) return -1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/**
 * The spans of the values of the top-level fields `names` of the JSON object text starting at
 * `from`; a name given twice counts at its last occurrence, as `JSON.parse` takes it. Null when
 * the text is not an object this scan can follow. Expects text that was valid JSON when written
 * (it checks the structure, not every literal), and takes time linear in its length.
 *
 * @example
 * ```ts
 * const text = '{"id":"a","metadata":[{"x":1}],"n":2}';
 * const spans = topLevelFields(text, 0, ['metadata']);
 * text.slice(spans.get('metadata').start, spans.get('metadata').end); // '[{"x":1}]'
 * ```
 */
export function topLevelFields(
  text: string,
  from: number,
  names: readonly string[],
): Map<string, Span> | null {
  const spans = new Map<string, Span>();
  let i = skipSpace(text, from);
  if (text.charCodeAt(i) !== OPEN_BRACE) return null;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return spans;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return null;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return null;
    const literal = text.slice(i + 1, keyEnd - 1);
    const name = literal.includes('\\') ? decodeKey(text.slice(i, keyEnd)) : literal;
    if (name === null) return null;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return null;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end === -1) return null;
    if (names.includes(name)) spans.set(name, { start, end });
    i = skipSpace(text, end);
    const next = text.charCodeAt(i);
    if (next === CLOSE_BRACE) return spans;
    if (next !== COMMA) return null;
    i = skipSpace(text, i + 1);
  }
}

/** A key written with escapes, as `JSON.parse` reads it; null when it is not a string literal. */
function decodeKey(literal: string): string | null {
  try {
    const key: unknown = JSON.parse(literal);
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}
