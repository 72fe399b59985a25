/**
 * The reference evaluator of CONTRACT section 7, endpoint by name: its own parameter reading
 * (`./query.ts`), then the exact rows over raw events, at most 1000 (CONTRACT section 4). The oracle of
 * the tests and the naive baseline of the benchmarks; it imports nothing the rollups or the
 * read side run (a layering rule in .dependency-cruiser.cjs holds it to that).
 *
 * @example
 * ```ts
 * evaluateEndpoint('logs.all', events, new URLSearchParams('project=p&project_tier=PRO'), nowUs);
 * // { ok: true, rows: [...] } or { ok: false, error: { code, parameter } }
 * ```
 *
 * @module
 */
import type { EndpointRows } from '../contract/rows.ts';
import type { LogEvent } from '../events/types.ts';
import { apiCountsRows } from './api-counts.ts';
import { invocationStatsRows } from './invocation-stats.ts';
import { logsAllRows } from './logs-all.ts';
import {
  apiCountsQuery,
  invocationQuery,
  logsQuery,
  type QueryRefusal,
  type QueryResult,
  type QuerySource,
} from './query.ts';

/** CONTRACT section 4: at most 1000 rows per answer. */
const MAX_ROWS = 1000;

/** The reference's answer: exact rows, or why the parameters were refused. */
export type ReferenceAnswer<R> =
  | { readonly ok: true; readonly rows: R[] }
  | { readonly ok: false; readonly error: QueryRefusal };

/** Options of {@link evaluateEndpoint}. */
export interface ReferenceOptions {
  /** Row cap of the endpoint record. Default 1000. */
  readonly maxRows?: number;
}

type Evaluators = {
  readonly [N in keyof EndpointRows]: (
    events: readonly LogEvent[],
    source: QuerySource,
    nowUs: number,
  ) => ReferenceAnswer<EndpointRows[N]>;
};

function answer<Q, R>(
  read: QueryResult<Q>,
  rows: (query: Q) => R[],
): ReferenceAnswer<R> {
  return read.ok ? { ok: true, rows: rows(read.query) } : read;
}

const EVALUATORS: Evaluators = {
  'functions.invocation-stats': (events, source, nowUs) =>
    answer(invocationQuery(source), (query) => invocationStatsRows(events, query, nowUs)),
  'logs.all': (events, source, nowUs) =>
    answer(logsQuery(source), (query) => logsAllRows(events, query, nowUs)),
  'usage.api-counts': (events, source, nowUs) =>
    answer(apiCountsQuery(source), (query) => apiCountsRows(events, query, nowUs)),
};

/**
 * The exact answer of endpoint `name` over `events` at `nowUs`, its rows capped at
 * `options.maxRows`.
 *
 * @throws {RangeError} when `maxRows` is not a positive integer.
 */
export function evaluateEndpoint<N extends keyof EndpointRows>(
  name: N,
  events: readonly LogEvent[],
  source: QuerySource,
  nowUs: number,
  options: ReferenceOptions = {},
): ReferenceAnswer<EndpointRows[N]> {
  const maxRows = options.maxRows ?? MAX_ROWS;
  if (!Number.isSafeInteger(maxRows) || maxRows < 1) {
    throw new RangeError(`maxRows must be a positive integer: got ${maxRows}`);
  }
  // A Logflare source's event counts as the edge event it stands for, if any (CONTRACT 3.1).
  const folded = events.flatMap((event) =>
    event.source === 'logflare' ? (event.edge === null ? [] : [event.edge]) : [event]
  );
  const evaluated = EVALUATORS[name](folded, source, nowUs);
  if (!evaluated.ok || evaluated.rows.length <= maxRows) return evaluated;
  return { ok: true, rows: evaluated.rows.slice(0, maxRows) };
}
