/**
 * Parameters of `functions.invocation-stats` (CONTRACT section 5).
 *
 * @module
 */

import {
  DEFAULT_INVOCATION_INTERVAL,
  type InvocationInterval,
  isInvocationInterval,
} from '../../time/series.ts';
import {
  type ParamResult,
  type ParamSource,
  PROJECT_REF_HINT,
  readParam,
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

/**
 * Reads the parameters of `functions.invocation-stats`: `project` (required), `function_id`
 * (optional; absent or empty = all), `interval` (any value other than the five, absent or
 * empty included, behaves as `1day`: the fallback of the reference system's NULL parameter).
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
  const project = requiredParam(source, 'project', PROJECT_REF_HINT);
  if (!project.ok) return project;
  const intervalText = readParam(source, 'interval') ?? '';
  const functionId = readParam(source, 'function_id');
  return {
    ok: true,
    params: {
      project: project.params,
      functionId: functionId === null || functionId === '' ? null : functionId,
      interval: invocationIntervalOf(intervalText),
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
