/**
 * Where the values of chosen top-level fields lie in the UTF-8 bytes of a JSON object, found by
 * one linear scan without decoding the bytes or building the object: a stored event can then be
 * answered by copying the bytes of its fields instead of parsing and serializing it again. Bytes,
 * not text: an entry read from the store as bytes goes into the answer's bytes without being
 * decoded and encoded again (UTF-8 keeps every structural character a single byte that no
 * multi-byte character contains).
 *
 * @module
 */
import * as CHARS from './json-chars.ts';

// Module constants, not the imported bindings in the loops: V8 reads an imported binding through
// its cell on every use (the scan took 40% longer with them).
const QUOTE = CHARS.QUOTE;
const BACKSLASH = CHARS.BACKSLASH;
const OPEN_BRACE = CHARS.OPEN_BRACE;
const CLOSE_BRACE = CHARS.CLOSE_BRACE;
const OPEN_BRACKET = CHARS.OPEN_BRACKET;
const CLOSE_BRACKET = CHARS.CLOSE_BRACKET;
const COMMA = CHARS.COMMA;
const COLON = CHARS.COLON;
const isJsonSpace = CHARS.isJsonSpace;

/** The names a scan looks for, prepared once by {@link fieldNames}. */
export interface FieldNames {
  readonly names: readonly string[];
  /** Each name as the bytes of its JSON string literal without escapes (`"id"`). */
  readonly literals: readonly Uint8Array[];
}

const UTF8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder();

/**
 * Prepares `names` for {@link topLevelFields}.
 *
 * @example
 * ```ts
 * const ROW_FIELDS = fieldNames(['id', 'metadata']);
 * ```
 */
export function fieldNames(names: readonly string[]): FieldNames {
  return { names, literals: names.map((name) => UTF8.encode(JSON.stringify(name))) };
}

/** The index of the first byte at or after `at` that is not JSON whitespace. */
export function skipSpace(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i < bytes.length && isJsonSpace(bytes[i] ?? 0)) i++;
  return i;
}

/** The index after the string literal opening at `at`; -1 when it does not end. */
function stringEnd(bytes: Uint8Array, at: number): number {
  const length = bytes.length;
  for (let i = at + 1; i < length; i++) {
    const code = bytes[i];
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH) i++;
  }
  return -1;
}

/**
 * The index after the value starting at `at`; -1 when it is cut short. One loop over the bytes,
 * strings skipped inline: most strings of an event are short, where a call (or a native search)
 * per string costs more than the bytes (twice as fast as a call per string, measured on
 * generated events).
 */
function valueEnd(bytes: Uint8Array, at: number): number {
  const length = bytes.length;
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let i = at;
    while (i < length) {
      const code = bytes[i] ?? 0;
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isJsonSpace(code)) {
        break;
      }
      i++;
    }
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < length; i++) {
    const code = bytes[i];
    if (code === QUOTE) {
      for (i++; i < length; i++) {
        const inner = bytes[i];
        if (inner === QUOTE) break;
        if (inner === BACKSLASH) i++;
      }
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Whether `bytes[start, end)` is `literal`. */
function bytesEqual(bytes: Uint8Array, start: number, end: number, literal: Uint8Array): boolean {
  if (end - start !== literal.length) return false;
  for (let i = 0; i < literal.length; i++) {
    if (bytes[start + i] !== literal[i]) return false;
  }
  return true;
}

/** Whether `bytes[start, end)` holds a backslash (a loop: a view of a Buffer costs more). */
function hasBackslash(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] === BACKSLASH) return true;
  return false;
}

/** Which of `fields` the key literal `bytes[start, end)` names; -1 for none (or not a string). */
function fieldIndex(bytes: Uint8Array, start: number, end: number, fields: FieldNames): number {
  for (let k = 0; k < fields.literals.length; k++) {
    const literal = fields.literals[k];
    if (literal !== undefined && bytesEqual(bytes, start, end, literal)) return k;
  }
  // A key written with escapes (rare): decoded as `JSON.parse` reads it.
  if (hasBackslash(bytes, start, end)) {
    try {
      const key: unknown = JSON.parse(UTF8_DECODER.decode(bytes.subarray(start, end)));
      return typeof key === 'string' ? fields.names.indexOf(key) : -1;
    } catch {
      return -1;
    }
  }
  return -1;
}

/**
 * Finds the values of the top-level fields `fields` of the JSON object whose bytes start at
 * `from`: for the k-th name, `spans[2k]` and `spans[2k + 1]` are set to where its value starts
 * and ends (-1 and -1 when absent); a name given twice counts at its last occurrence, as
 * `JSON.parse` takes it. Answers the index after the object's closing brace, or -1 when the
 * bytes are not an object this scan can follow. Expects
 * bytes that were valid JSON when written (it checks the structure, not every literal), and
 * takes time linear in their length.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode('{"id":"a","metadata":[{"x":1}],"n":2}');
 * const spans = new Int32Array(2);
 * topLevelFields(bytes, 0, fieldNames(['metadata']), spans); // 37
 * new TextDecoder().decode(bytes.subarray(spans[0], spans[1])); // '[{"x":1}]'
 * ```
 */
export function topLevelFields(
  bytes: Uint8Array,
  from: number,
  fields: FieldNames,
  spans: Int32Array,
): number {
  spans.fill(-1);
  let i = skipSpace(bytes, from);
  if (bytes[i] !== OPEN_BRACE) return -1;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd === -1) return -1;
    const field = fieldIndex(bytes, i, keyEnd, fields);
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return -1;
    const start = skipSpace(bytes, i + 1);
    const end = valueEnd(bytes, start);
    if (end === -1) return -1;
    if (field !== -1) {
      spans[2 * field] = start;
      spans[2 * field + 1] = end;
    }
    i = skipSpace(bytes, end);
    const next = bytes[i];
    if (next === CLOSE_BRACE) return i + 1;
    if (next !== COMMA) return -1;
    i = skipSpace(bytes, i + 1);
  }
}
