/**
 * Answers an endpoint from the rollups: parameters parsed by the same code as the reference
 * evaluator, rows read from the store. The HTTP API and the benchmarks call this; nothing here
 * knows about HTTP.
 *
 * @example
 * ```ts
 * const answer = await answerEndpoint('logs.all', new URLSearchParams('project=p&project_tier=PRO'), context);
 * if (answer.ok) console.log(answer.rows.length);
 * ```
 *
 * @module
 */
import type { ParamError, ParamSource } from '../contract/params/common.ts';
import { parseApiCountsParams } from '../contract/params/api-counts.ts';
import { parseInvocationStatsParams } from '../contract/params/invocation-stats.ts';
import { parseLogsAllParams } from '../contract/params/logs-all.ts';
import { type HostSource, readApiCounts, storeHosts } from './read/api-counts.ts';
import type { ReadContext } from './read/context.ts';
import { readInvocationStats } from './read/invocation-stats.ts';
import { readLogsAll } from './read/logs-all.ts';
import type { EndpointName } from '../contract/registry.ts';
import type { EndpointRows } from '../contract/rows.ts';

/** Rows of an endpoint, or why its parameters were refused. */
export type Answer<N extends EndpointName> =
  | { readonly ok: true; readonly rows: EndpointRows[N][] }
  | { readonly ok: false; readonly error: ParamError };

/** Options of {@link answerEndpoint}. */
export interface AnswerOptions {
  /** Where `usage.api-counts` finds request hosts; default: straight from the store. */
  readonly hosts?: HostSource;
}

/**
 * The rows of endpoint `name` for `params` at `context.nowUs`. Rejects only when the store
 * fails (the caller answers 503); bad parameters resolve to `{ ok: false, error }`.
 */
export async function answerEndpoint<N extends EndpointName>(
  name: N,
  params: ParamSource,
  context: ReadContext,
  options: AnswerOptions = {},
): Promise<Answer<N>> {
  // Each branch returns the rows of its own endpoint; TypeScript cannot narrow N from `name`.
  type Result = Promise<Answer<N>>;
  switch (name) {
    case 'functions.invocation-stats': {
      const parsed = parseInvocationStatsParams(params);
      if (!parsed.ok) return parsed;
      return { ok: true, rows: await readInvocationStats(context, parsed.params) } as Awaited<
        Result
      >;
    }
    case 'logs.all': {
      const parsed = parseLogsAllParams(params);
      if (!parsed.ok) return parsed;
      return { ok: true, rows: await readLogsAll(context, parsed.params) } as Awaited<Result>;
    }
    case 'usage.api-counts': {
      const parsed = parseApiCountsParams(params);
      if (!parsed.ok) return parsed;
      const rows = await readApiCounts(context, parsed.params, options.hosts ?? storeHosts);
      return { ok: true, rows } as Awaited<Result>;
    }
  }
  throw new Error(`unknown endpoint ${String(name)}`);
}
