/**
 * Synthetic `function-edge` (edge-function relay) events, shaped like CONTRACT section 3's
 * example, built directly as JSON text for speed.
 *
 * @module
 */

import type { SyntheticFunction, SyntheticProject } from './population.ts';
import { type Random, WeightedSampler } from './random.ts';
import { timestampJson } from './timestamps.ts';
import { CLIENTS, FUNCTION_STATUS_WEIGHTS, FUNCTION_STATUSES, REGIONS } from './vocabulary.ts';

const statusSampler = new WeightedSampler(FUNCTION_STATUS_WEIGHTS);

/**
 * An execution time in ms: log-normal around the function's median, 0.5% of the time a large
 * outlier (10x to 100x, cold starts and timeouts), rounded to microseconds. Null (the relay
 * had no timing) 0.5% of the time.
 *
 * @example
 * ```ts
 * executionTimeMs(random, { medianMs: 40, sigma: 0.5, ... }); // e.g. 37.412
 * ```
 */
export function executionTimeMs(random: Random, fn: SyntheticFunction): number | null {
  if (random.chance(0.005)) return null;
  let value = fn.medianMs * Math.exp(fn.sigma * random.normal());
  if (random.chance(0.005)) value *= 10 + random.next() * 90;
  return Math.round(value * 1000) / 1000;
}

/**
 * One `function-edge` event as a JSON line (no trailing newline) at instant `us`. 0.5% of
 * events have no response entry (so no invocation).
 *
 * @example
 * ```ts
 * functionEdgeLine(random, population.projects[0], 'a-uuid', 1_795_256_130_123_456);
 * // '{"id":"a-uuid","timestamp":1795256130123456,"event_message":"POST | 200 | ...","metadata":[...]}'
 * ```
 */
export function functionEdgeLine(
  random: Random,
  project: SyntheticProject,
  id: string,
  us: number,
): string {
  const fn = project.functions[project.functionSampler.draw(random)] ??
    random.pick(project.functions);
  const status = FUNCTION_STATUSES[statusSampler.draw(random)] ?? 200;
  const time = executionTimeMs(random, fn);
  const method = random.chance(0.8) ? 'POST' : 'GET';
  const url = `https://${project.host}/functions/v1/${fn.name}`;
  const [userAgent, clientInfo] = random.pick(CLIENTS);
  const response = random.chance(0.005)
    ? ''
    : `{"status_code":${status},"headers":[{"content_type":"application/json",` +
      `"content_length":"${random.int(20_000)}","x_served_by":"supabase-edge-runtime"}]}`;
  return `{"id":"${id}","timestamp":${timestampJson(random, us, 0.85)},` +
    `"event_message":"${method} | ${status} | ${url}","metadata":[{"project_ref":"${project.ref}",` +
    `"function_id":"${fn.id}","execution_time_ms":${time === null ? 'null' : time},` +
    `"deployment_id":"${project.ref}_${fn.id}_${fn.version}","version":"${fn.version}",` +
    `"execution_id":"${random.uuid()}","served_by":"supabase-edge-runtime",` +
    `"region":"${random.pick(REGIONS)}","request":[{"method":"${method}","url":"${url}",` +
    `"pathname":"/functions/v1/${fn.name}","host":"${project.host}","headers":[{"accept":"*/*",` +
    `"user_agent":"${userAgent}","x_client_info":"${clientInfo}",` +
    `"content_type":"application/json"}]}],"response":[${response}]}]}`;
}
