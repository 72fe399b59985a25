/**
 * The events of a body posted to Logflare's ingest routes, in each form Logflare takes: an
 * object whose `batch` is an array of events, a JSON array, one event object (an object whose
 * `batch` is not an array is one event, as Logflare reads it), or NDJSON (one event a line).
 * Each event comes with its position (1-based) for the answer's errors; one that is not JSON, or
 * nests deeper than any event may, is that item's error, never the whole body's.
 *
 * @module
 */
import { exceedsDepth } from '../../src/events/depth.ts';
import { EVENT_LIMITS } from '../../src/events/limits.ts';
import { isJsonObject, type Json } from '../../src/events/types.ts';
import { HttpError } from '../errors.ts';
import { type BodyLimits, splitBody } from '../ingest/body.ts';
import { isJsonSpace, OPEN_BRACE } from '../../src/text/json-chars.ts';

/** One posted event, parsed, or why it is not one, and its position in the body. */
export type PostedItem =
  | { readonly line: number; readonly ok: true; readonly value: unknown }
  | { readonly line: number; readonly ok: false; readonly reason: string };

/** Deepest nesting of a posted event (itself level 1) that is normalized at all. */
const MAX_ITEM_DEPTH = EVENT_LIMITS.maxDepth + 1;

/** An item of `value`, refused when it nests too deep to be an event (or to be written again). */
function item(line: number, value: Json): PostedItem {
  // Bounded on the way down: it stops at the first container beyond the limit.
  if (exceedsDepth(value, MAX_ITEM_DEPTH)) {
    return {
      line,
      ok: false,
      reason: `an event must not nest deeper than ${EVENT_LIMITS.maxDepth} levels`,
    };
  }
  return { line, ok: true, value };
}

function parsed(line: number, text: string): PostedItem {
  try {
    const value: Json = JSON.parse(text);
    return item(line, value);
  } catch (error) {
    return {
      line,
      ok: false,
      reason: `not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Whether the body's first byte past white space opens an object. */
function opensObject(bytes: Uint8Array): boolean {
  let at = 0;
  while (at < bytes.length && isJsonSpace(bytes[at] ?? 0)) at++;
  return bytes[at] === OPEN_BRACE;
}

/**
 * The events of `bytes`, at most `limits.maxItems` (413 beyond, as a body of too many events
 * always is).
 *
 * @example
 * ```ts
 * postedItems(encode('{"batch":[{"event_message":"a"},{"event_message":"b"}]}'), limits);
 * // [{ line: 1, ok: true, value: { event_message: 'a' } }, { line: 2, … }]
 * ```
 */
export function postedItems(bytes: Uint8Array, limits: BodyLimits): PostedItem[] {
  const lines = splitBody(bytes, limits);
  const only = lines.length === 1 && opensObject(bytes) ? lines[0] : undefined;
  if (only === undefined) return lines.map(({ line, text }) => parsed(line, text));
  let value: Json;
  try {
    value = JSON.parse(only.text);
  } catch {
    return [parsed(only.line, only.text)];
  }
  const batch = isJsonObject(value) ? value['batch'] : undefined;
  if (!Array.isArray(batch)) return [item(only.line, value)];
  if (batch.length > limits.maxItems) {
    throw new HttpError(
      'payload_too_large',
      `the body holds more than ${limits.maxItems} events (the limit per request): send fewer per request`,
    );
  }
  return batch.map((event, index) => item(index + 1, event));
}
