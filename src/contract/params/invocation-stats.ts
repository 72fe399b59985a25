/**
 * Parameters of `functions.invocation-stats` (DESIGN section 5).
 *
 * @module
 */

import {
  DEFAULT_INVOCATION_INTERVAL,
  INVOCATION_INTERVALS,
  type InvocationInterval,
  isInvocationInterval,
} from '../../time/series.ts';
import {
  type ParamResult,
  type ParamSource,
  PROJECT_REF_HINT,
  readParam,
  rejectQueryParameters,
  requiredParam,
} from './common.ts';

/** Typed parameters of `functions.invocation-stats`. */
export interface InvocationStatsParams {
  /** Equality with `metadata[].project_ref`. */
  readonly project: string;
  /** Equality with `metadata[].function_id`; null = every function of the project. */
  readonly functionId: string | null;
  readonly interval: InvocationInterval;
}

const INTERVAL_NAMES = Object.keys(INVOCATION_INTERVALS).join(', ');

/**
 * Reads the parameters of `functions.invocation-stats`: `project` (required), `function_id`
 * (optional; absent or empty = all), `interval` (required; an unknown value behaves as
 * `1day`, an absent or empty one is `missing_parameter`).
 *
 * @example
 * ```ts
 * parseInvocationStatsParams(new URLSearchParams('project=p&interval=weekly'));
 * // { ok: true, params: { project: 'p', functionId: null, interval: '1day' } }
 * ```
 */
export function parseInvocationStatsParams(
  source: ParamSource,
): ParamResult<InvocationStatsParams> {
  const query = rejectQueryParameters(source, 'functions.invocation-stats');
  if (query !== null) return query;
  const project = requiredParam(source, 'project', PROJECT_REF_HINT);
  if (!project.ok) return project;
  const intervalText = requiredParam(source, 'interval', `one of ${INTERVAL_NAMES}`);
  if (!intervalText.ok) return intervalText;
  const functionId = readParam(source, 'function_id');
  return {
    ok: true,
    params: {
      project: project.params,
      functionId: functionId === null || functionId === '' ? null : functionId,
      interval: invocationIntervalOf(intervalText.params),
    },
  };
}

/**
 * The interval an `interval` value stands for: itself when known, else `1day`.
 *
 * @example
 * ```ts
 * invocationIntervalOf('5min'); // '5min'
 * invocationIntervalOf('toString'); // '1day'
 * ```
 */
export function invocationIntervalOf(value: string): InvocationInterval {
  return isInvocationInterval(value) ? value : DEFAULT_INVOCATION_INTERVAL;
}
