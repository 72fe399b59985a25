/**
 * Validation of one producer message: bytes in, a `LogEvent` or a `Rejection` out. Runs on
 * every event, so it parses the JSON once, runs a precompiled validator, and scans the
 * timestamp by hand.
 *
 * @module
 */

import { DEFAULT_MAX_FUTURE_SKEW_US } from '../config/defaults.ts';
import { utf8Length } from '../text/utf8-length.ts';
import { describeDuration } from '../time/duration.ts';
import { parseTimestamp } from '../time/timestamp.ts';
import { exceedsDepth } from './depth.ts';
import { edgeRequests, illFormedKeyField, invocations, longUrlHost } from './derive.ts';
import { EVENT_LIMITS, MAX_EVENT_AGE_US } from './limits.ts';
import {
  describeSchemaError,
  describeValue,
  validateEdgeEvent,
  validateFunctionEdgeEvent,
} from './schema.ts';
import type { ErrorObject } from 'ajv';
import type { EdgeRequest, Json, ParseResult, RejectionKind, Source } from './types.ts';

/** Options of `parse`. */
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

type Rejected = Extract<ParseResult, { readonly ok: false }>;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** `bytes` past a leading UTF-8 byte-order mark, which the decoder leaves out of the text too. */
function withoutByteOrderMark(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/**
 * Validates one message of a source against the producer contract (CONTRACT section 3).
 *
 * Rejected: a message over `maxBytes` (UTF-8 bytes, also when given as a string); invalid UTF-8;
 * not JSON; a schema violation (named by its JSON pointer); `metadata` nested deeper than 32
 * levels; a timestamp that is neither an RFC 3339 string with a zone nor a safe integer of
 * microseconds; a timestamp more than `maxFutureSkewUs` after `nowUs`; a timestamp more than
 * `maxAgeUs` before `nowUs` (exactly `maxAgeUs` old is accepted).
 *
 * @example
 * ```ts
 * const result = parse(
 *   '{"id":"a","timestamp":"2026-11-21T10:15:30Z","project":"p","metadata":[]}',
 *   'edge',
 *   { nowUs: 1_795_256_200_000_000 },
 * );
 * if (result.ok) result.event.timestampUs; // 1_795_256_130_000_000
 * else result.rejection.reason; // e.g. 'timestamp is 12 minutes in the future (allowed skew 5 minutes)'
 * ```
 */
export function parse(
  bytes: Uint8Array | string,
  source: Source,
  options: ParseOptions,
): ParseResult {
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
      text = utf8.decode(bytes);
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

  if (source === 'edge') {
    if (!validateEdgeEvent(value)) return schemaRejection(validateEdgeEvent.errors);
    if (exceedsDepth(value.metadata, EVENT_LIMITS.maxDepth)) return depthRejection();
    const illFormed = illFormedKeyField(value);
    if (illFormed !== null) return illFormedRejection(illFormed);
    const timestampUs = checkTimestamp(value.timestamp, options);
    if (typeof timestampUs !== 'number') return timestampUs;
    const requests = edgeRequests(value.metadata);
    const longHost = longUrlHost(value.metadata, requests, EVENT_LIMITS.hostLength);
    const hosts = distinctHosts(requests);
    if (hosts > EVENT_LIMITS.hostsPerEvent) {
      return reject(
        'cardinality',
        `/metadata must name at most ${EVENT_LIMITS.hostsPerEvent} distinct request hosts: got ${hosts}`,
        '/metadata',
      );
    }
    if (longHost !== null) {
      return reject(
        'size',
        `${longHost.path} must have a host of at most ${EVENT_LIMITS.hostLength} characters: got ${longHost.length}`,
        longHost.path,
      );
    }
    return {
      ok: true,
      event: {
        source: 'edge',
        id: value.id,
        timestampUs,
        project: value.project,
        eventMessage: value.event_message ?? null,
        metadata: value.metadata,
        requests,
        raw: text,
        ...(typeof bytes === 'string' ? {} : { rawBytes: withoutByteOrderMark(bytes) }),
      },
    };
  }

  if (!validateFunctionEdgeEvent(value)) return schemaRejection(validateFunctionEdgeEvent.errors);
  if (exceedsDepth(value.metadata, EVENT_LIMITS.maxDepth)) return depthRejection();
  const illFormed = illFormedKeyField(value);
  if (illFormed !== null) return illFormedRejection(illFormed);
  const timestampUs = checkTimestamp(value.timestamp, options);
  if (typeof timestampUs !== 'number') return timestampUs;
  const first = value.metadata[0];
  if (first === undefined) {
    return reject('schema', '/metadata must have at least 1 entry: got 0', '/metadata');
  }
  const other = value.metadata.findIndex((entry) => entry.project_ref !== first.project_ref);
  if (other !== -1) {
    return reject(
      'schema',
      `every metadata entry must name the same project_ref (the event's project): entry 0 has ${
        JSON.stringify(first.project_ref)
      }, entry ${other} has ${JSON.stringify(value.metadata[other]?.project_ref)}`,
      `/metadata/${other}/project_ref`,
    );
  }
  return {
    ok: true,
    event: {
      source: 'function-edge',
      id: value.id,
      timestampUs,
      project: first.project_ref,
      eventMessage: value.event_message ?? null,
      metadata: value.metadata,
      invocations: invocations(value.metadata),
    },
  };
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

/** How many distinct hosts `requests` name; most events name one, so no set is built for them. */
function distinctHosts(requests: readonly EdgeRequest[]): number {
  if (requests.length <= 1) return (requests[0]?.host ?? null) === null ? 0 : 1;
  const hosts = new Set<string>();
  for (const { host } of requests) if (host !== null) hosts.add(host);
  return hosts.size;
}

function checkTimestamp(
  value: string | number,
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

function schemaRejection(
  errors: readonly ErrorObject[] | null | undefined,
): Rejected {
  const error = errors?.[0];
  if (error !== undefined && error.instancePath === '/timestamp') {
    return reject('timestamp', timestampFormReason(error.data), '/timestamp');
  }
  const path = error === undefined
    ? ''
    : error.keyword === 'required'
    ? `${error.instancePath}/${String(error.params.missingProperty)}`
    : error.instancePath;
  return reject('schema', describeSchemaError(error), path);
}

function illFormedRejection(pointer: string): Rejected {
  return reject(
    'encoding',
    `${pointer} must be well-formed Unicode: it holds a lone surrogate`,
    pointer,
  );
}

function depthRejection(): Rejected {
  return reject(
    'size',
    `/metadata must not nest deeper than ${EVENT_LIMITS.maxDepth} levels`,
    '/metadata',
  );
}

function reject(
  kind: RejectionKind,
  reason: string,
  path = '',
): Rejected {
  return { ok: false, rejection: { kind, reason, path } };
}
