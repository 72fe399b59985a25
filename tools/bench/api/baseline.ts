/**
 * The baseline of `npm run bench:api`: the reference evaluator answering the same requests over
 * the raw events, one after another (the query-on-every-call approach the rollups replace),
 * for a bounded number of calls or seconds, whichever comes first.
 *
 * @module
 */
import process from 'node:process';
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
  /** This process's CPU time (user and system, all its threads) per call, in µs. */
  readonly cpuUsPerCall: number;
}

/** How long a baseline runs: at most so many calls or seconds, whichever comes first. */
export interface BaselineLimits {
  readonly maxCalls: number;
  readonly maxSeconds: number;
  /** The `now` of every evaluation (Unix µs): the time the API answered the same requests. */
  readonly nowUs: number;
  /** How many callers call at once, each in a closed loop (default 1: one after another). */
  readonly callers?: number;
}

/**
 * Times `call` on `queries`, taken in turn, within `limits`: `limits.callers` callers (default
 * one), each calling again as soon as its call returns; `caller` tells them apart.
 */
export async function timeCalls(
  queries: readonly string[],
  limits: BaselineLimits,
  call: (query: string, caller: number) => unknown,
): Promise<BaselineResult> {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const caller = async (index: number) => {
    while (next < limits.maxCalls && performance.now() - started < limits.maxSeconds * 1000) {
      const query = queries[next++ % queries.length] ?? '';
      const before = performance.now();
      await call(query, index);
      latencies.push(performance.now() - before);
    }
  };
  await Promise.all(Array.from({ length: limits.callers ?? 1 }, (_, index) => caller(index)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    perSecond: latencies.length / seconds,
    p50Ms: nearestRank(latencies, 0.5),
    maxMs: latencies.at(-1) ?? Number.NaN,
    cpuUsPerCall: (cpu.user + cpu.system) / latencies.length,
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
