/**
 * The body of an ingest request: read up to a byte limit, then split into items, either the
 * lines of NDJSON, the elements of a JSON array or one JSON object (one event, on any number of
 * lines), each with its position for error reports.
 *
 * @module
 */
import { EVENT_LIMITS } from '../../src/events/limits.ts';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../../src/text/json-chars.ts';
import { HttpError } from '../errors.ts';
import { messageOf } from '../../src/text/error-message.ts';
import { strictUtf8 } from '../../src/text/utf8-text.ts';
import { decodedBody } from './decompress.ts';

/** One event's text and where it was in the body. */
export interface BodyItem {
  /** NDJSON: the 1-based line number; JSON array: the 1-based element number. */
  readonly line: number;
  /** One JSON value, as text. */
  readonly text: string;
}

function tooLarge(maxBytes: number, got: string): HttpError {
  return new HttpError(
    'payload_too_large',
    `the body is larger than the limit of ${maxBytes} bytes (${got}): send fewer events per request`,
  );
}

/**
 * The body's bytes, decompressed where its `Content-Encoding` is gzip or deflate, refusing (413
 * `payload_too_large`) more than `maxBytes`: by `Content-Length` before reading, else as soon as
 * what arrives (decompressed) passes the limit, so a small compressed body cannot inflate past it.
 *
 * @example
 * ```ts
 * const bytes = await readBody(request, 10 * 1024 * 1024);
 * ```
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes, `Content-Length: ${declared}`);
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const { stream, compressed } = decodedBody(request, request.body);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      // The stream fails only when the client stops sending, or sends what does not decompress:
      // a request error, not ours.
      throw new HttpError(
        compressed ? 'invalid_body' : 'incomplete_body',
        compressed
          ? `the body does not decompress as its Content-Encoding says (${messageOf(error)})`
          : `the body ended before it was complete (${messageOf(error)}): send it again`,
        {},
        { cause: error },
      );
    });
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes, `more than ${maxBytes} bytes sent`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function malformed(detail: string, options?: ErrorOptions): HttpError {
  return new HttpError(
    'invalid_body',
    `malformed body: ${detail}; send NDJSON (one JSON event per line), a JSON array of events ` +
      'or one JSON event',
    {},
    options,
  );
}

/**
 * Deepest nesting of an array body before it is refused whole. A valid event needs at most
 * `EVENT_LIMITS.maxDepth` + 2 levels (the array, the event, then `metadata`); twice the event
 * limit leaves room for an event that is somewhat too deep to be reported alone, by position.
 */
export const MAX_BODY_DEPTH = 2 * EVENT_LIMITS.maxDepth;

/** Bounds of one body beyond its byte size. */
export interface BodyLimits {
  /** Most events (lines or array elements) one body may hold; beyond: 413. */
  readonly maxItems: number;
  /** Deepest nesting of a JSON array body, the array itself being level 1; beyond: 400. */
  readonly maxDepth: number;
}

function tooManyItems(maxItems: number): HttpError {
  return new HttpError(
    'payload_too_large',
    `the body holds more than ${maxItems} events (the limit per request): send fewer per request`,
  );
}

/**
 * The items of a body: a JSON array when the first non-blank character is `[`; one event when
 * the body is one JSON object (however many lines it spans: a pretty-printed event); else NDJSON
 * (blank lines skipped). Each item is the text as sent. Throws 400 `invalid_body` when the body
 * is empty, not UTF-8, an array that does not close (or nests deeper than `limits.maxDepth`), or
 * none of these forms (its first non-blank character is not `[` or `{`); 413 `payload_too_large`
 * when it holds more than `limits.maxItems` items. Nothing is parsed here beyond finding the
 * items: a single item that is not a valid event is not an error of the body, the caller reports
 * it.
 *
 * @example
 * ```ts
 * splitBody(new TextEncoder().encode('{"id":"a"}\n\n{"id":"b"}'), { maxItems: 10, maxDepth: 40 });
 * // [{ line: 1, text: '{"id":"a"}' }, { line: 3, text: '{"id":"b"}' }]
 * splitBody(new TextEncoder().encode('{\n  "id": "a"\n}'), { maxItems: 10, maxDepth: 40 });
 * // [{ line: 1, text: '{\n  "id": "a"\n}' }]
 * ```
 */
export function splitBody(bytes: Uint8Array, limits: BodyLimits): BodyItem[] {
  let text: string;
  try {
    text = strictUtf8(bytes);
  } catch (error) {
    if (error instanceof TypeError) throw malformed('not valid UTF-8', { cause: error });
    throw error;
  }
  const first = /\S/.exec(text);
  if (first === null) throw malformed('the body is empty');
  if (first[0] === '[') return arrayItems(text, first.index, limits);
  if (first[0] !== '{') {
    throw malformed(`it starts with ${JSON.stringify(first[0])}, not with "{" or "["`);
  }
  const whole = wholeObject(text, first.index, limits.maxDepth);
  if (whole !== null) return [{ line: lineOf(text, first.index), text: whole }];
  return lineItems(text, limits.maxItems);
}

/**
 * The body, from the `{` at `open`, when it is one JSON object and nothing but blanks after it;
 * null otherwise (NDJSON, whose first line closes its object before the next line starts), and
 * also when it nests deeper than `maxDepth`: such a body is read as lines, each judged by the
 * event parser's own depth limit. NDJSON costs a scan of its first line only.
 */
function wholeObject(text: string, open: number, maxDepth: number): string | null {
  let end = -1;
  walkStructure(text, open, (index, code, depth) => {
    if (depth > maxDepth) return false;
    if (depth === 0 && (code === CLOSE_BRACE || code === CLOSE_BRACKET)) {
      end = index;
      return false;
    }
    return true;
  });
  return end !== -1 && isBlank(text, end + 1, text.length) ? text.slice(open, end + 1) : null;
}

/** The 1-based line of `index` in `text`. */
function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
    line++;
  }
  return line;
}

/**
 * Walks the JSON structure of `text` from `from`, skipping what strings hold: calls `visit` with
 * the index, the character code and the nesting depth after it of every bracket, brace and comma
 * outside a string, until `visit` answers false or the text ends. One linear pass, no parse.
 */
function walkStructure(
  text: string,
  from: number,
  visit: (index: number, code: number, depth: number) => boolean,
): void {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (!visit(i, code, ++depth)) return;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      if (!visit(i, code, --depth)) return;
    } else if (code === COMMA && !visit(i, code, depth)) return;
  }
}

/** Non-blank lines, without splitting the whole body into strings first. */
function lineItems(text: string, maxItems: number): BodyItem[] {
  const items: BodyItem[] = [];
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    if (!isBlank(text, start, stop)) {
      if (items.length === maxItems) throw tooManyItems(maxItems);
      items.push({ line, text: text.slice(start, stop) });
    }
    start = stop + 1;
  }
  return items;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    if (!isJsonSpace(text.charCodeAt(i))) return false;
  }
  return true;
}

/**
 * The elements of a JSON array body, found by one pass that follows strings and nesting (a
 * linear scan: no parse of the whole array, no copy of its elements). The element texts are
 * parsed one by one afterwards, so a malformed element is reported alone.
 */
function arrayItems(text: string, open: number, limits: BodyLimits): BodyItem[] {
  const items: BodyItem[] = [];
  let elementStart = open + 1;
  let closed = -1;
  const push = (end: number) => {
    const element = text.slice(elementStart, end).trim();
    if (element === '') {
      if (items.length === 0 && end === closed) return;
      throw malformed('not a valid JSON array (an element is missing between commas)');
    }
    if (items.length === limits.maxItems) throw tooManyItems(limits.maxItems);
    items.push({ line: items.length + 1, text: element });
  };
  walkStructure(text, open, (index, code, depth) => {
    if (code === COMMA) {
      if (depth === 1) {
        push(index);
        elementStart = index + 1;
      }
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (depth > limits.maxDepth) {
        throw malformed(`it nests deeper than ${limits.maxDepth} levels`);
      }
    } else if (depth === 0) {
      if (code !== CLOSE_BRACKET) throw malformed('not a valid JSON array (it closes with "}")');
      closed = index;
      push(index);
      return false;
    }
    return true;
  });
  if (closed === -1) throw malformed('not a valid JSON array (it does not close)');
  if (!isBlank(text, closed + 1, text.length)) {
    throw malformed('not a valid JSON array (something follows its closing "]")');
  }
  return items;
}
