/**
 * The steps every parse of a message shares, whatever its source: bytes to text within a size
 * limit, the text to a JSON value, the timestamp to microseconds within the allowed skew and age,
 * each failure a `Rejection` a producer can act on.
 *
 * @module
 */
import { DEFAULT_MAX_FUTURE_SKEW_US } from '../config/defaults.ts';
import { utf8Length } from '../text/utf8-length.ts';
import { strictUtf8 } from '../text/utf8-text.ts';
import { describeDuration } from '../time/duration.ts';
import { parseTimestamp } from '../time/timestamp.ts';
import { EVENT_LIMITS, MAX_EVENT_AGE_US } from './limits.ts';
import { describeValue } from './schema.ts';
import type { Json, ParseResult, RejectionKind } from './types.ts';

/** Options of `parse` and of every other parse of an event. */
export interface ParseOptions {
  /** The clock: now, in integer microseconds since the epoch. */
  readonly nowUs: number;
  /** How far in the future a timestamp may be. Default 5 minutes. */
  readonly maxFutureSkewUs?: number;
  /** How old an event may be: the longest retention. Default 90 days. */
  readonly maxAgeUs?: number;
  /** Largest message in UTF-8 bytes (also when given as a string). Default 128 KiB. */
  readonly maxBytes?: number;
}

/** Default of `ParseOptions.maxFutureSkewUs` (its home is the configuration's defaults). */
export { DEFAULT_MAX_FUTURE_SKEW_US };

/** Default of `ParseOptions.maxAgeUs`: 90 days, the longest retention of any tier. */
export const DEFAULT_MAX_AGE_US = MAX_EVENT_AGE_US;

/** A parse's rejection. */
export type Rejected = Extract<ParseResult, { readonly ok: false }>;

/** `bytes` past a leading UTF-8 byte-order mark, which the decoder leaves out of the text too. */
export function withoutByteOrderMark(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/** A message decoded: its text and the JSON value it holds. */
export interface Decoded {
  readonly ok: true;
  readonly text: string;
  readonly value: unknown;
}

/**
 * The text and JSON value of a message, or its rejection: larger than `maxBytes` (UTF-8 bytes,
 * also when given as a string), not UTF-8, not JSON.
 *
 * @example
 * ```ts
 * decodeJson('{"a":1}', { nowUs }); // { ok: true, text: '{"a":1}', value: { a: 1 } }
 * ```
 */
export function decodeJson(bytes: Uint8Array | string, options: ParseOptions): Decoded | Rejected {
  const maxBytes = options.maxBytes ?? EVENT_LIMITS.maxBytes;
  // A string of n UTF-16 units takes n to 3n bytes: count them only when it can matter.
  const size = typeof bytes !== 'string'
    ? bytes.byteLength
    : bytes.length * 3 <= maxBytes
    ? bytes.length
    : utf8Length(bytes);
  if (size > maxBytes) {
    return reject('size', `event is larger than the limit of ${maxBytes} bytes: got ${size}`);
  }
  let text: string;
  if (typeof bytes === 'string') {
    text = bytes;
  } else {
    try {
      text = strictUtf8(bytes);
    } catch (error) {
      if (error instanceof TypeError) {
        return reject('encoding', `not valid UTF-8: ${error.message}`);
      }
      throw error;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return reject('json', `not valid JSON: ${error.message}`);
    throw error;
  }

  return { ok: true, text, value };
}

/**
 * The microseconds of an event's `timestamp` field: an RFC 3339 string with a zone, or a safe
 * integer of microseconds since the epoch. Null for anything else.
 *
 * @example
 * ```ts
 * eventTimestampUs(1_795_256_130_123_456); // 1_795_256_130_123_456
 * eventTimestampUs('2026-11-21T10:15:30.123456Z'); // 1_795_256_130_123_456
 * eventTimestampUs('1795256130123456'); // null: a numeric string is not a timestamp
 * ```
 */
export function eventTimestampUs(value: Json | undefined): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string') return parseTimestamp(value);
  return null;
}

/**
 * The reason given for a timestamp that is neither form of `eventTimestampUs`.
 *
 * @example
 * ```ts
 * timestampFormReason('yesterday');
 * // 'timestamp must be an RFC 3339 string with a zone or an integer of microseconds since the epoch: got "yesterday"'
 * ```
 */
export function timestampFormReason(value: unknown): string {
  return `timestamp must be an RFC 3339 string with a zone or an integer of microseconds since the epoch: got ${
    describeValue(value)
  }`;
}

/**
 * The microseconds of an event's `timestamp`, or its rejection when it is of neither form,
 * beyond the allowed skew or older than the allowed age.
 */
export function checkTimestamp(
  value: Json | undefined,
  options: ParseOptions,
): number | Rejected {
  const timestampUs = eventTimestampUs(value);
  if (timestampUs === null) return reject('timestamp', timestampFormReason(value), '/timestamp');
  const skew = options.maxFutureSkewUs ?? DEFAULT_MAX_FUTURE_SKEW_US;
  const ahead = timestampUs - options.nowUs;
  if (ahead > skew) {
    return reject(
      'future',
      `timestamp is ${describeDuration(ahead)} in the future (allowed skew ${
        describeDuration(skew)
      })`,
      '/timestamp',
    );
  }
  const maxAge = options.maxAgeUs ?? DEFAULT_MAX_AGE_US;
  const age = options.nowUs - timestampUs;
  if (age > maxAge) {
    return reject(
      'too-old',
      `timestamp is ${describeDuration(age)} old (events older than ${
        describeDuration(maxAge)
      } are rejected)`,
      '/timestamp',
    );
  }
  return timestampUs;
}

/** A rejection of `kind`, its reason and the JSON pointer it concerns. */
export function reject(
  kind: RejectionKind,
  reason: string,
  path = '',
): Rejected {
  return { ok: false, rejection: { kind, reason, path } };
}
