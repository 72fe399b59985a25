/**
 * The baseline of `npm run bench:api`: the reference evaluator answering the same requests over
 * the raw events, one after another (the query-on-every-call approach the rollups replace),
 * for a bounded number of calls or seconds, whichever comes first.
 *
 * @module
 */
import type { EndpointName } from '../../../src/contract/registry.ts';
import type { LogEvent } from '../../../src/events/types.ts';
import { evaluateEndpoint } from '../../../src/reference/evaluate.ts';
import { nearestRank } from '../../nearest-rank.ts';

/** What the baseline measured. */
export interface BaselineResult {
  readonly calls: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly maxMs: number;
}

/** How long a baseline runs: at most so many calls or seconds, whichever comes first. */
export interface BaselineLimits {
  readonly maxCalls: number;
  readonly maxSeconds: number;
  /** The `now` of every evaluation (Unix µs): the time the API answered the same requests. */
  readonly nowUs: number;
}

/** Times `call` on `queries`, taken in turn, one after another, within `limits`. */
export async function timeCalls(
  queries: readonly string[],
  limits: BaselineLimits,
  call: (query: string) => unknown,
): Promise<BaselineResult> {
  const latencies: number[] = [];
  const started = performance.now();
  while (
    latencies.length < limits.maxCalls && performance.now() - started < limits.maxSeconds * 1000
  ) {
    const query = queries[latencies.length % queries.length] ?? '';
    const before = performance.now();
    await call(query);
    latencies.push(performance.now() - before);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    perSecond: latencies.length / seconds,
    p50Ms: nearestRank(latencies, 0.5),
    maxMs: latencies.at(-1) ?? Number.NaN,
  };
}

/** Times the reference evaluator on `queries` (taken in turn) over `events`. */
export function baseline(
  endpoint: EndpointName,
  events: readonly LogEvent[],
  queries: readonly string[],
  limits: BaselineLimits,
): Promise<BaselineResult> {
  return timeCalls(queries, limits, (query) => {
    const answer = evaluateEndpoint(endpoint, events, new URLSearchParams(query), limits.nowUs);
    if (!answer.ok) throw new Error(`baseline query refused: ${JSON.stringify(answer.error)}`);
  });
}
