/**
 * An event posted to Logflare's ingest routes, normalized as Logflare normalizes it before it is
 * stored (CONTRACT section 3.1): an `id` where it has none (a random UUID), `timestamp` as
 * integer microseconds (an RFC 3339 string; an integer of seconds, milliseconds, microseconds or
 * nanoseconds, told by its digits, nanoseconds truncated to the microsecond; none: the time it
 * arrived), `event_message` from `message` or
 * `log_entry` where it has none, and the project ref: the event's own, unless it names none or
 * `default`, which take the configured one. What is normalized is then validated as every
 * stream's event is (`parseSourceLog`), and its text is what is stored and published.
 *
 * @module
 */
import { isJsonObject, type Json, type JsonObject } from '../../src/events/types.ts';
import { parseTimestamp } from '../../src/time/timestamp.ts';

/** The project ref Vector's events name, which a self-hosted stack's Studio asks for too. */
export const SELF_HOSTED_PROJECT = 'default';

/** What normalizing needs. */
export interface NormalizeOptions {
  /** The time the event arrived (µs): the timestamp of an event without one. */
  readonly nowUs: number;
  /** The project ref of events that name none or {@link SELF_HOSTED_PROJECT}. */
  readonly projectRef: string;
  /** A new event id. */
  readonly newId: () => string;
}

/** Microseconds per unit of an integer timestamp of `digits` digits, as Logflare reads them. */
const UNIT_BY_DIGITS: ReadonlyMap<number, number> = new Map([
  [10, 1_000_000],
  [13, 1_000],
  [16, 1],
]);

/** Digits of an integer timestamp of nanoseconds. */
const NANOSECOND_DIGITS = 19;

/** `value` as microseconds where Logflare would read it so; else `value` itself (judged later). */
function timestampUs(value: Json | undefined, nowUs: number): Json {
  if (value === undefined || value === null) return nowUs;
  if (typeof value === 'string') return parseTimestamp(value) ?? value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return value;
  const digits = String(value).length;
  // Nanoseconds, beyond a double's exact integers, truncated as an RFC 3339 string's are.
  if (digits === NANOSECOND_DIGITS) return Math.floor(value / 1000);
  const unit = UNIT_BY_DIGITS.get(digits);
  return unit === undefined ? value : value * unit;
}

/**
 * The normalized event of `value`, or why it cannot be one.
 *
 * @example
 * ```ts
 * normalizeEvent({ event_message: 'hi', timestamp: '2026-11-21T10:15:30.123456789Z' },
 *   { nowUs, projectRef: 'default', newId: randomUUID });
 * // { ok: true, event: { event_message: 'hi', timestamp: 1795256130123456, id: '…', project: 'default' } }
 * ```
 */
export function normalizeEvent(
  value: unknown,
  options: NormalizeOptions,
): { ok: true; event: JsonObject } | { ok: false; reason: string } {
  if (!isJsonObject(value)) {
    return {
      ok: false,
      reason: `an event must be a JSON object: got ${
        Array.isArray(value) ? 'an array' : typeof value
      }`,
    };
  }
  const event: JsonObject = { ...value };
  if (event['id'] === undefined || event['id'] === null) event['id'] = options.newId();
  event['timestamp'] = timestampUs(event['timestamp'], options.nowUs);
  if (event['event_message'] === undefined) {
    const message = event['message'] ?? event['log_entry'];
    if (typeof message === 'string') event['event_message'] = message;
  }
  const project = event['project'];
  if (project === undefined || project === null || project === SELF_HOSTED_PROJECT) {
    event['project'] = options.projectRef;
  }
  return { ok: true, event };
}
