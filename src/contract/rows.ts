/**
 * The rows each endpoint returns (CONTRACT section 5), shared by the reference evaluator, the
 * rollup read side and the HTTP API, with the value encodings of CONTRACT section 4 (those of the
 * reference system's warehouse): a TIMESTAMP is an integer of microseconds since the Unix epoch,
 * a DATETIME a `YYYY-MM-DDTHH:MM:SS` string in UTC without a zone.
 *
 * @module
 */

import type { JsonObject } from '../events/types.ts';
import type { EndpointName } from './registry.ts';

/** One bucket of `functions.invocation-stats`. Execution times in ms, null without values. */
export interface InvocationStatsRow {
  /** Bucket start, in microseconds since the epoch (a TIMESTAMP). */
  readonly timestamp: number;
  readonly count: number;
  /** Invocations with `status_code >= 400`. */
  readonly error_count: number;
  readonly min_execution_time: number | null;
  readonly max_execution_time: number | null;
  readonly avg_execution_time: number | null;
  readonly p95_execution_time: number | null;
  readonly p99_execution_time: number | null;
}

/** One entry of `logs.all`. */
export interface LogRow {
  readonly id: string;
  /** In microseconds since the epoch (a TIMESTAMP). */
  readonly timestamp: number;
  /** Null when the event had none. */
  readonly event_message: string | null;
  /** As ingested. */
  readonly metadata: JsonObject[];
}

/** One bucket of `usage.api-counts`. */
export interface ApiCountsRow {
  /** Bucket start, `YYYY-MM-DDTHH:MM:SS` in UTC (a DATETIME). */
  readonly timestamp: string;
  readonly total_rest_requests: number;
  readonly total_storage_requests: number;
  readonly total_auth_requests: number;
  readonly total_realtime_requests: number;
}

/** The row type of each endpoint. */
export interface EndpointRows {
  readonly 'functions.invocation-stats': InvocationStatsRow;
  readonly 'logs.all': LogRow;
  readonly 'usage.api-counts': ApiCountsRow;
}

/** A row of any endpoint. */
export type Row = EndpointRows[EndpointName];
