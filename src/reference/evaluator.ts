/**
 * The reference evaluator (DESIGN section 7): exact answers of the three endpoints over an
 * array of validated events at a given `now`, from raw query parameters. Plain code, no
 * sketches, no rollups: the oracle of the tests and the naive baseline of the benchmarks.
 *
 * @module
 */

import { parseApiCountsParams } from '../contract/params/api-counts.ts';
import type { ParamError, ParamSource } from '../contract/params/common.ts';
import { parseInvocationStatsParams } from '../contract/params/invocation-stats.ts';
import { parseLogsAllParams } from '../contract/params/logs-all.ts';
import { type EndpointName, MAX_ROWS } from '../contract/registry.ts';
import type { ApiCountsRow, InvocationStatsRow, LogRow, Row } from '../contract/rows.ts';
import type { LogEvent } from '../events/types.ts';
import { apiCountsRows } from './api-counts.ts';
import { invocationStatsRows } from './invocation-stats.ts';
import { logsAllRows } from './logs-all.ts';

/** Options of the evaluators. */
export interface EvaluateOptions {
  /** Row cap of the endpoint record. Default 1000 (`MAX_ROWS`). */
  readonly maxRows?: number;
}

/** Rows, or why the parameters were refused. */
export type Evaluation<R> =
  | { readonly ok: true; readonly rows: R[] }
  | { readonly ok: false; readonly error: ParamError };

/**
 * Exact `functions.invocation-stats`.
 *
 * @example
 * ```ts
 * evaluateInvocationStats(events, new URLSearchParams('project=p&interval=1hr'), nowUs);
 * // { ok: true, rows: [...61 rows] }
 * ```
 */
export function evaluateInvocationStats(
  events: readonly LogEvent[],
  params: ParamSource,
  nowUs: number,
  options: EvaluateOptions = {},
): Evaluation<InvocationStatsRow> {
  const parsed = parseInvocationStatsParams(params);
  if (!parsed.ok) return parsed;
  return { ok: true, rows: cap(invocationStatsRows(events, parsed.params, nowUs), options) };
}

/**
 * Exact `logs.all`.
 *
 * @example
 * ```ts
 * evaluateLogsAll(events, new URLSearchParams('project=p&project_tier=PRO'), nowUs);
 * // { ok: true, rows: [...at most 100 rows, newest first] }
 * ```
 */
export function evaluateLogsAll(
  events: readonly LogEvent[],
  params: ParamSource,
  nowUs: number,
  options: EvaluateOptions = {},
): Evaluation<LogRow> {
  const parsed = parseLogsAllParams(params);
  if (!parsed.ok) return parsed;
  return { ok: true, rows: cap(logsAllRows(events, parsed.params, nowUs), options) };
}

/**
 * Exact `usage.api-counts`.
 *
 * @example
 * ```ts
 * evaluateApiCounts(events, new URLSearchParams('project=abc&interval=daily'), nowUs);
 * // { ok: true, rows: [...non-empty day buckets, ascending] }
 * ```
 */
export function evaluateApiCounts(
  events: readonly LogEvent[],
  params: ParamSource,
  nowUs: number,
  options: EvaluateOptions = {},
): Evaluation<ApiCountsRow> {
  const parsed = parseApiCountsParams(params);
  if (!parsed.ok) return parsed;
  return { ok: true, rows: cap(apiCountsRows(events, parsed.params, nowUs), options) };
}

/**
 * Exact answer of the named endpoint.
 *
 * @example
 * ```ts
 * const answer = evaluate('logs.all', events, { project: 'p', project_tier: 'FREE' }, nowUs);
 * if (!answer.ok) answer.error.code; // 'missing_parameter' | 'invalid_parameter'
 * ```
 */
export function evaluate(
  endpoint: EndpointName,
  events: readonly LogEvent[],
  params: ParamSource,
  nowUs: number,
  options: EvaluateOptions = {},
): Evaluation<Row> {
  switch (endpoint) {
    case 'functions.invocation-stats':
      return evaluateInvocationStats(events, params, nowUs, options);
    case 'logs.all':
      return evaluateLogsAll(events, params, nowUs, options);
    case 'usage.api-counts':
      return evaluateApiCounts(events, params, nowUs, options);
  }
}

function cap<R>(rows: R[], options: EvaluateOptions): R[] {
  const maxRows = options.maxRows ?? MAX_ROWS;
  if (!Number.isSafeInteger(maxRows) || maxRows < 1) {
    throw new RangeError(`maxRows must be a positive integer: got ${maxRows}`);
  }
  return rows.length > maxRows ? rows.slice(0, maxRows) : rows;
}
