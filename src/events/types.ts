/**
 * The event contract after validation (CONTRACT section 3): what every later layer (rollups,
 * reference evaluator, ring buffers) reads. Raw producer JSON never travels further than
 * `parse`.
 *
 * @module
 */
import { LOGFLARE_SOURCES, type LogflareSource } from './logflare-sources.ts';

/** Any JSON value, as ingested. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object, as ingested. */
export type JsonObject = { [key: string]: Json };

/**
 * Whether a parsed JSON value is an object (not an array, not null).
 *
 * @example
 * ```ts
 * isJsonObject({ a: 1 }); // true
 * isJsonObject([1]); // false
 * ```
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The two producer sources (each is published to its own Kafka topic, see `src/kafka/topics.ts`). */
export const SOURCES = ['edge', 'function-edge'] as const;

/** A producer source name. */
export type Source = (typeof SOURCES)[number];

/**
 * One request of an `edge` event: one (metadata entry, request entry) pair. `host` is
 * `request.host` (when a non-empty string), else the hostname of `request.url`, else null;
 * `path` is `request.path` (when a string), else the pathname of `request.url`, else null.
 * See `src/events/derive.ts`.
 */
export interface EdgeRequest {
  readonly host: string | null;
  readonly path: string | null;
}

/** A valid API-gateway request log (`edge` source). */
export interface EdgeEvent {
  readonly source: 'edge';
  readonly id: string;
  /** Integer microseconds since the Unix epoch (UTC). */
  readonly timestampUs: number;
  readonly project: string;
  readonly eventMessage: string | null;
  /** `metadata` exactly as ingested (returned verbatim by `logs.all`). */
  readonly metadata: JsonObject[];
  /** Every (metadata entry, request entry) pair, in document order. */
  readonly requests: readonly EdgeRequest[];
  /**
   * The event's JSON text as received: the ring buffer keeps it verbatim (serializing the
   * parsed metadata again would cost more than everything else the fold does for an event).
   */
  readonly raw: string;
  /**
   * The UTF-8 bytes `raw` was decoded from, when the event arrived as bytes (a Kafka message's
   * value, a leading byte-order mark left out): the ring buffer's entry is built from them, so
   * the text is never encoded again on its way to the store.
   */
  readonly rawBytes?: Uint8Array;
}

/**
 * One invocation of a `function-edge` event: one (metadata entry, response entry) pair.
 * A metadata entry with no response entries yields no invocation.
 */
export interface Invocation {
  readonly projectRef: string;
  readonly functionId: string | null;
  /** `execution_time_ms` of the metadata entry; null when absent or null. */
  readonly executionTimeMs: number | null;
  /** `status_code` of the response entry; null when absent or null. */
  readonly statusCode: number | null;
}

/** A valid edge-function relay log (`function-edge` source). */
export interface FunctionEdgeEvent {
  readonly source: 'function-edge';
  readonly id: string;
  /** Integer microseconds since the Unix epoch (UTC). */
  readonly timestampUs: number;
  /**
   * `metadata[].project_ref`, the same in every entry: the Kafka message key of this event, and
   * the one project whose rollups it changes (one writer per project keeps folding exactly once).
   */
  readonly project: string;
  readonly eventMessage: string | null;
  readonly metadata: JsonObject[];
  /** Every (metadata entry, response entry) pair, in document order. */
  readonly invocations: readonly Invocation[];
}

/**
 * A valid event of one of Logflare's sources (CONTRACT section 3.1), as its ring buffer keeps it:
 * `text` is the event as normalized at ingest (an `id` given, `timestamp` in microseconds), which
 * is also what is published to the source's topic, so a replay reads the same event.
 */
export interface SourceLogEvent {
  readonly source: 'logflare';
  readonly sourceName: LogflareSource;
  readonly id: string;
  /** Integer microseconds since the Unix epoch (UTC). */
  readonly timestampUs: number;
  readonly project: string;
  /** The normalized event's JSON text. */
  readonly text: string;
  /** What the rollups fold of it: Kong's events as `edge` events (see `kong.ts`), else null. */
  readonly edge: EdgeEvent | null;
}

/** A valid event of any source. */
export type LogEvent = EdgeEvent | FunctionEdgeEvent | SourceLogEvent;

/** An event the rollups fold: what a {@link SourceLogEvent} stands for there, if anything. */
export type RollupEvent = EdgeEvent | FunctionEdgeEvent;

/**
 * The event the rollups fold for `event`: itself, or a source log's `edge` event (null: the
 * source feeds only its ring buffer).
 *
 * @example
 * ```ts
 * rollupEventOf(kongEvent); // its EdgeEvent
 * rollupEventOf(gotrueEvent); // null
 * ```
 */
export function rollupEventOf(event: LogEvent): RollupEvent | null {
  return event.source === 'logflare' ? event.edge : event;
}

/** Where a stream's messages come from: one of the producer {@link SOURCES} or a Logflare source. */
export type StreamSource = Source | LogflareSource;

/** Every source a stream (a Kafka topic, an ingest route) may carry, each with a topic. */
export const STREAM_SOURCES: readonly StreamSource[] = [...SOURCES, ...LOGFLARE_SOURCES];

/** Why an event was rejected: a sentence a producer can act on, and the JSON path it concerns. */
export interface Rejection {
  /** Which rule the message broke: a short label of a bounded set, for metrics and headers. */
  readonly kind: RejectionKind;
  readonly reason: string;
  /** JSON pointer of the offending value (`/metadata/0/project_ref`), or `` for the whole event. */
  readonly path: string;
}

/** Every {@link RejectionKind}, in the order of the checks. */
export const REJECTION_KINDS = [
  'tombstone',
  'size',
  'encoding',
  'json',
  'schema',
  'timestamp',
  'future',
  'too-old',
  'cardinality',
] as const;

/**
 * Which rule a rejected message broke: `tombstone` (no value), `size` (too large, too deep, a
 * value too long), `encoding` (not UTF-8, a lone surrogate), `json`, `schema`, `timestamp` (not a
 * timestamp), `future` (beyond the allowed skew), `too-old` (beyond the longest retention),
 * `cardinality` (more distinct keys than one event may create).
 */
export type RejectionKind = (typeof REJECTION_KINDS)[number];

/** The outcome of parsing one producer message. */
export type ParseResult<E extends LogEvent = LogEvent> =
  | { readonly ok: true; readonly event: E }
  | { readonly ok: false; readonly rejection: Rejection };
