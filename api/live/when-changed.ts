/**
 * When a watched answer can change, so that it is computed again then and only then:
 *
 * - on a commit of its project, signalled on the project's channel: `functions.invocation-stats`
 *   and `logs.all` read the project's own keys. A `usage.api-counts` pattern matches request hosts,
 *   which any project may register: only a plain ref (no RE2 syntax) names a project to listen
 *   to, and the answer is also computed again each second for the hosts of the others;
 * - as its window slides, with no event at all: a `functions.invocation-stats` window moves by its
 *   buckets' grain (a second for `5min`); a `logs.all` window ends now and is read each second. At
 *   most a minute, so that a signal lost on the way (a Cluster node failing over) is made up for.
 *
 * @module
 */
import { literalOf } from '../../src/contract/params/api-counts.ts';
import { readParam } from '../../src/contract/params/common.ts';
import { invocationIntervalOf } from '../../src/contract/params/invocation-stats.ts';
import { GRAIN_US } from '../../src/time/grain.ts';
import { INVOCATION_INTERVALS } from '../../src/time/series.ts';

/** The longest time between two computations of a watched answer, in ms. */
export const MAX_SLIDE_MS = 60_000;

/** When an answer can change: its project's commits (null: none known) and its window's step. */
export interface WhenChanged {
  readonly project: string | null;
  /** In ms: the answer is computed again at each multiple of it. */
  readonly slideMs: number;
}

/** When the answer of `endpoint` for `params` can change. */
export function whenChanged(endpoint: string, params: URLSearchParams): WhenChanged {
  const project = readParam(params, 'project') || null;
  if (endpoint === 'usage.api-counts') {
    return {
      project: project === null ? null : literalOf(project),
      slideMs: GRAIN_US.second / 1000,
    };
  }
  let stepUs = GRAIN_US.second;
  if (endpoint === 'functions.invocation-stats') {
    const interval = readParam(params, 'interval') ?? '';
    stepUs = GRAIN_US[INVOCATION_INTERVALS[invocationIntervalOf(interval)].grain];
  }
  return { project, slideMs: Math.min(stepUs / 1000, MAX_SLIDE_MS) };
}
