/**
 * The body of an ingest request: read up to a byte limit, then split into items, either the
 * lines of NDJSON or the elements of a JSON array, each with its position for error reports.
 *
 * @module
 */
import { HttpError } from '../errors.ts';

/** One event's text and where it was in the body. */
export interface BodyItem {
  /** NDJSON: the 1-based line number; JSON array: the 1-based element number. */
  readonly line: number;
  /** One JSON value, as text. */
  readonly text: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function tooLarge(maxBytes: number, got: string): HttpError {
  return new HttpError(
    'payload_too_large',
    `the body is larger than the limit of ${maxBytes} bytes (${got}): send fewer events per request`,
  );
}

/**
 * The body's bytes, refusing (413 `payload_too_large`) more than `maxBytes`: by
 * `Content-Length` before reading, else as soon as the stream passes the limit.
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
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
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

function malformed(detail: string): HttpError {
  return new HttpError(
    'invalid_body',
    `malformed body: ${detail}; send NDJSON (one JSON event per line) or a JSON array of events`,
  );
}

/**
 * The items of a body: a JSON array when the first non-blank character is `[`, else NDJSON
 * (blank lines skipped). Throws 400 `invalid_body` when the body is empty, not UTF-8, an
 * unparseable array, or neither form (its first non-blank character is not `[` or `{`).
 * A single line that is not a valid event is not an error of the body: the caller reports it.
 *
 * @example
 * ```ts
 * splitBody(new TextEncoder().encode('{"id":"a"}\n\n{"id":"b"}'));
 * // [{ line: 1, text: '{"id":"a"}' }, { line: 3, text: '{"id":"b"}' }]
 * ```
 */
export function splitBody(bytes: Uint8Array): BodyItem[] {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) throw malformed('not valid UTF-8');
    throw error;
  }
  const first = /\S/.exec(text);
  if (first === null) throw malformed('the body is empty');
  if (first[0] === '[') return arrayItems(text);
  if (first[0] !== '{') {
    throw malformed(`it starts with ${JSON.stringify(first[0])}, not with "{" or "["`);
  }
  const items: BodyItem[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() !== '') items.push({ line: index + 1, text: line });
  });
  return items;
}

function arrayItems(text: string): BodyItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) throw malformed(`not a valid JSON array (${error.message})`);
    throw error;
  }
  if (!Array.isArray(parsed)) throw malformed('not a JSON array');
  return parsed.map((element: unknown, index) => ({
    line: index + 1,
    text: JSON.stringify(element),
  }));
}
