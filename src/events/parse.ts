/**
 * Validation of one producer message: bytes in, a `LogEvent` or a `Rejection` out. Runs on
 * every event, so it parses the JSON once, runs a precompiled validator, and scans the
 * timestamp by hand.
 *
 * @module
 */

import { exceedsDepth } from './depth.ts';
import { edgeRequests, illFormedKeyField, invocations, longUrlHost } from './derive.ts';
import { EVENT_LIMITS } from './limits.ts';
import {
  checkTimestamp,
  decodeJson,
  type ParseOptions,
  reject,
  type Rejected,
  timestampFormReason,
  withoutByteOrderMark,
} from './decode.ts';
import { describeSchemaError, validateEdgeEvent, validateFunctionEdgeEvent } from './schema.ts';
import type { ErrorObject } from 'ajv';
import type {
  EdgeEvent,
  EdgeRequest,
  FunctionEdgeEvent,
  ParseResult,
  RollupEvent,
  Source,
} from './types.ts';
import { type WalkedEdge, type WalkedFunctionEdge, walkEdge, walkFunctionEdge } from './walk.ts';

export {
  DEFAULT_MAX_AGE_US,
  DEFAULT_MAX_FUTURE_SKEW_US,
  eventTimestampUs,
  type ParseOptions,
  timestampFormReason,
} from './decode.ts';

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
): ParseResult<RollupEvent> {
  const decoded = decodeJson(bytes, options);
  if (!decoded.ok) return decoded;
  const raw = { text: decoded.text, bytes };
  if (source === 'edge') {
    const walked = walkEdge(decoded.value);
    if (walked !== null) return edgeAt(walked, raw, options);
  } else {
    const walked = walkFunctionEdge(decoded.value);
    if (walked !== null) return functionEdgeAt(walked, options);
  }
  return parseDecodedFully(decoded.value, raw, source, options);
}

/**
 * `parse` without its fast path (`walk.ts`): the full path alone, which decides every message
 * the walk cannot prove valid. The differential test of the walk holds `parse` to it.
 */
export function parseFully(
  bytes: Uint8Array | string,
  source: Source,
  options: ParseOptions,
): ParseResult<RollupEvent> {
  const decoded = decodeJson(bytes, options);
  if (!decoded.ok) return decoded;
  return parseDecodedFully(decoded.value, { text: decoded.text, bytes }, source, options);
}

/** The full path of a decoded message of `source`. */
function parseDecodedFully(
  value: unknown,
  raw: Raw,
  source: Source,
  options: ParseOptions,
): ParseResult<RollupEvent> {
  return source === 'edge'
    ? parseEdgeFully(value, raw, options)
    : parseFunctionEdgeFully(value, options);
}

/** What an event was read from: its text, and the bytes when it arrived as bytes. */
interface Raw {
  readonly text: string;
  readonly bytes: Uint8Array | string;
}

/** The edge event of `walked` (proved valid but for its time), or its timestamp's rejection. */
function edgeAt(walked: WalkedEdge, raw: Raw, options: ParseOptions): ParseResult<EdgeEvent> {
  const timestampUs = checkTimestamp(walked.timestamp, options);
  if (typeof timestampUs !== 'number') return timestampUs;
  const { bytes, text } = raw;
  return {
    ok: true,
    event: {
      source: 'edge',
      id: walked.id,
      timestampUs,
      project: walked.project,
      eventMessage: walked.eventMessage,
      metadata: walked.metadata,
      requests: walked.requests,
      raw: text,
      ...(typeof bytes === 'string' ? {} : { rawBytes: withoutByteOrderMark(bytes) }),
    },
  };
}

/** The function-edge event of `walked`, or its timestamp's rejection. */
function functionEdgeAt(
  walked: WalkedFunctionEdge,
  options: ParseOptions,
): ParseResult<FunctionEdgeEvent> {
  const timestampUs = checkTimestamp(walked.timestamp, options);
  if (typeof timestampUs !== 'number') return timestampUs;
  return {
    ok: true,
    event: {
      source: 'function-edge',
      id: walked.id,
      timestampUs,
      project: walked.project,
      eventMessage: walked.eventMessage,
      metadata: walked.metadata,
      invocations: walked.invocations,
    },
  };
}

/**
 * The full path of an edge event: the schema (ajv), the depth, the key fields, the time and the
 * hosts, each rejection worded for the producer. What the walk could not prove comes here.
 */
function parseEdgeFully(value: unknown, raw: Raw, options: ParseOptions): ParseResult<EdgeEvent> {
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
  const walked: WalkedEdge = {
    id: value.id,
    timestamp: value.timestamp,
    project: value.project,
    eventMessage: value.event_message ?? null,
    metadata: value.metadata,
    requests,
  };
  return edgeAt(walked, raw, options);
}

/** The full path of a function-edge event, as {@link parseEdgeFully}. */
function parseFunctionEdgeFully(
  value: unknown,
  options: ParseOptions,
): ParseResult<FunctionEdgeEvent> {
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
  return functionEdgeAt({
    id: value.id,
    timestamp: value.timestamp,
    project: first.project_ref,
    eventMessage: value.event_message ?? null,
    metadata: value.metadata,
    invocations: invocations(value.metadata),
  }, options);
}

/** How many distinct hosts `requests` name; most events name one, so no set is built for them. */
function distinctHosts(requests: readonly EdgeRequest[]): number {
  if (requests.length <= 1) return (requests[0]?.host ?? null) === null ? 0 : 1;
  const hosts = new Set<string>();
  for (const { host } of requests) if (host !== null) hosts.add(host);
  return hosts.size;
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
