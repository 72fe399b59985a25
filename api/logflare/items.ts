/**
 * The events of a body posted to Logflare's ingest routes, in each form Logflare takes: an
 * object with a `batch` array, a JSON array, one event object, or NDJSON (one event a line).
 * Each event comes with its position (1-based) for the answer's errors; one that is not JSON is
 * that item's error, never the whole body's.
 *
 * @module
 */
import { HttpError } from '../errors.ts';
import { type BodyLimits, splitBody } from '../ingest/body.ts';

/** One posted event, parsed, or why it is not JSON, and its position in the body. */
export type PostedItem =
  | { readonly line: number; readonly ok: true; readonly value: unknown }
  | { readonly line: number; readonly ok: false; readonly reason: string };

function parsed(line: number, text: string): PostedItem {
  try {
    return { line, ok: true, value: JSON.parse(text) };
  } catch (error) {
    return {
      line,
      ok: false,
      reason: `not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
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
  const items = splitBody(bytes, limits).map(({ line, text }) => parsed(line, text));
  const only = items.length === 1 ? items[0] : undefined;
  if (only === undefined || !only.ok) return items;
  const { value } = only;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('batch' in value)) {
    return items;
  }
  const batch = (value as { batch: unknown }).batch;
  if (!Array.isArray(batch)) {
    throw new HttpError('invalid_body', `"batch" must be an array of events: got ${typeof batch}`);
  }
  if (batch.length > limits.maxItems) {
    throw new HttpError(
      'payload_too_large',
      `the body holds more than ${limits.maxItems} events (the limit per request): send fewer per request`,
    );
  }
  return batch.map((event: unknown, index) => ({ line: index + 1, ok: true, value: event }));
}
