/**
 * How often a watched answer changes with no event at all: the step of its window's edge. A
 * `functions.invocation-stats` window moves by its buckets' grain (a second for `5min`); a
 * `usage.api-counts` window starts at its interval's precision (a second for `minutely`); a
 * `logs.all` window ends now, to the microsecond, and is read again each second. At most a
 * minute, so that a signal lost on the way (a Cluster node failing over) is made up for soon.
 *
 * @module
 */
import { readParam } from '../../src/contract/params/common.ts';
import { invocationIntervalOf } from '../../src/contract/params/invocation-stats.ts';
import { GRAIN_US } from '../../src/time/grain.ts';
import { INVOCATION_INTERVALS, isUsageInterval, USAGE_INTERVALS } from '../../src/time/series.ts';

/** The longest time between two computations of a watched answer, in ms. */
export const MAX_SLIDE_MS = 60_000;

/** The step of the window of `endpoint`'s answer for `params`, in ms. */
export function slideMsOf(endpoint: string, params: URLSearchParams): number {
  const interval = readParam(params, 'interval') ?? '';
  let stepUs = GRAIN_US.second;
  if (endpoint === 'functions.invocation-stats') {
    stepUs = GRAIN_US[INVOCATION_INTERVALS[invocationIntervalOf(interval)].grain];
  } else if (endpoint === 'usage.api-counts' && isUsageInterval(interval)) {
    stepUs = GRAIN_US[USAGE_INTERVALS[interval].precision];
  }
  return Math.min(stepUs / 1000, MAX_SLIDE_MS);
}
