/**
 * A function-edge stream of one project that goes past its per-day bound of distinct function
 * ids (issue 12, item 6), with the line numbers (offsets, on one partition) that must be refused.
 *
 * @module
 */
import { PROJECT_DAY_BOUNDS } from '../../src/rollup/admission.ts';

/** The stream's project. */
export const BOUNDED_PROJECT = 'boundedprojectaaaaaa';

const DAY_US = 86_400_000_000;
const PROJECT = BOUNDED_PROJECT;

/** Distinct function ids, 64 per event (the most one event may carry), then known ones. */
export function boundsStream(nowUs: number): { lines: string[]; refused: number[] } {
  const lines: string[] = [];
  const line = (id: string, functionIds: readonly string[], atUs: number) =>
    JSON.stringify({
      id,
      timestamp: atUs,
      metadata: functionIds.map((functionId) => ({
        project_ref: PROJECT,
        function_id: functionId,
        execution_time_ms: 5,
        response: [{ status_code: 200 }],
      })),
    });
  const ids = (from: number) => Array.from({ length: 64 }, (_, i) => `fn-${from + i}`);
  const perEvent = 64;
  const fits = Math.floor(PROJECT_DAY_BOUNDS.functions / perEvent);
  const refused: number[] = [];
  // 15 events of 64 new ids (960), the 16th would make 1,024: refused, as is every later one
  // naming new ids; events naming only admitted ids, and another day's, go on being folded.
  for (let i = 0; i < fits + 3; i++) {
    if (i >= fits) refused.push(lines.length);
    lines.push(line(`new-${i}`, ids(i * perEvent), nowUs - 60_000_000 + i));
    lines.push(line(`known-${i}`, ['fn-0', 'fn-100', 'fn-959'], nowUs - 50_000_000 + i));
  }
  const remaining = PROJECT_DAY_BOUNDS.functions - fits * perEvent;
  lines.push(line('fills-up', ids(90_000).slice(0, remaining), nowUs - 40_000_000));
  refused.push(lines.length);
  lines.push(line('one-more', ['fn-one-more'], nowUs - 30_000_000));
  lines.push(line('yesterday', ids(0), nowUs - DAY_US));
  return { lines, refused };
}
