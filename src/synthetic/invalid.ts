/**
 * Invalid events of each kind CONTRACT section 3 rejects, made from valid ones, so that the
 * dead-letter path of a pipeline sees every kind.
 *
 * @module
 */

import { isJsonObject, type Json, type JsonObject, type Source } from '../events/types.ts';
import { DAY_US } from '../time/civil.ts';
import { formatTimestamp } from '../time/timestamp.ts';
import type { Random } from './random.ts';

/** The kinds of invalid events. */
export const INVALID_KINDS = ['not-json', 'schema', 'bad-timestamp', 'future', 'too-old'] as const;

/** A kind of invalid event. */
export type InvalidKind = (typeof INVALID_KINDS)[number];

/** Breaks one field of an event object; each leaves it JSON but outside the schema. */
type Mutation = (event: JsonObject) => Json;

const firstEntry = (event: JsonObject, field: string): JsonObject => {
  const list = event[field];
  const entry = Array.isArray(list) ? list[0] : undefined;
  return isJsonObject(entry) ? entry : {};
};

const COMMON_MUTATIONS: readonly Mutation[] = [
  (event) => without(event, 'id'),
  (event) => ({ ...event, id: 12345 }),
  (event) => ({ ...event, id: '' }),
  (event) => ({ ...event, metadata: {} }),
  (event) => without(event, 'metadata'),
  (event) => ({ ...event, event_message: 42 }),
  (event) => [event],
];

const EDGE_MUTATIONS: readonly Mutation[] = [
  (event) => without(event, 'project'),
  (event) => ({ ...event, project: '' }),
  (event) => ({ ...event, metadata: [{ ...firstEntry(event, 'metadata'), request: 'GET /' }] }),
  (event) => ({
    ...event,
    metadata: [{ ...firstEntry(event, 'metadata'), response: [{ status_code: '200' }] }],
  }),
];

const FUNCTION_EDGE_MUTATIONS: readonly Mutation[] = [
  (event) => ({ ...event, metadata: [] }),
  (event) => ({ ...event, metadata: [without(firstEntry(event, 'metadata'), 'project_ref')] }),
  (event) => ({ ...event, metadata: [{ ...firstEntry(event, 'metadata'), project_ref: '' }] }),
  (event) => ({
    ...event,
    metadata: [{ ...firstEntry(event, 'metadata'), execution_time_ms: '12ms' }],
  }),
  (event) => ({
    ...event,
    metadata: [{ ...firstEntry(event, 'metadata'), execution_time_ms: -5 }],
  }),
];

const BAD_TIMESTAMPS: readonly ((us: number) => Json)[] = [
  () => 'yesterday',
  (us) => formatTimestamp(us).slice(0, 19), // no zone
  (us) => formatTimestamp(us).replace('T', 'X'),
  () => '2026-13-01T00:00:00Z',
  (us) => String(us), // a numeric string is not an integer
  (us) => us + 0.5,
  () => null,
  () => '21/11/2026 10:15',
];

const NOT_JSON: readonly ((line: string, random: Random) => string)[] = [
  (line, random) => line.slice(0, 1 + random.int(line.length - 2)), // truncated
  () => 'GET /rest/v1/todos 200',
  (line) => line.replaceAll('"', "'"),
  (line) => `${line},`,
];

/**
 * An invalid line of the given kind, made from a valid line of `source`:
 * - `not-json`: truncated, plain text, single quotes, or a trailing comma;
 * - `schema`: one required field missing or of the wrong type or range;
 * - `bad-timestamp`: a timestamp of neither accepted form;
 * - `future`: 1 to 31 days after `nowUs` (far beyond any skew, so it stays invalid if the line
 *   is replayed later);
 * - `too-old`: 91 to 121 days before `nowUs`.
 *
 * @example
 * ```ts
 * invalidLine(random, 'future', 'edge', validLine, nowUs); // same event, timestamp in a week
 * ```
 */
export function invalidLine(
  random: Random,
  kind: InvalidKind,
  source: Source,
  validLine: string,
  nowUs: number,
): string {
  if (kind === 'not-json') return random.pick(NOT_JSON)(validLine, random);
  const event: Json = JSON.parse(validLine);
  if (!isJsonObject(event)) throw new TypeError(`a valid ${source} line must be a JSON object`);
  switch (kind) {
    case 'schema': {
      const mutations = source === 'edge' ? EDGE_MUTATIONS : FUNCTION_EDGE_MUTATIONS;
      const all = [...COMMON_MUTATIONS, ...mutations];
      return JSON.stringify(random.pick(all)(event));
    }
    case 'bad-timestamp':
      return JSON.stringify({ ...event, timestamp: random.pick(BAD_TIMESTAMPS)(nowUs) });
    case 'future':
      return JSON.stringify({ ...event, timestamp: nowUs + DAY_US + random.int(30 * DAY_US) });
    case 'too-old':
      return JSON.stringify({
        ...event,
        timestamp: formatTimestamp(nowUs - 91 * DAY_US - random.int(30 * DAY_US)),
      });
  }
}

function without(event: JsonObject, field: string): JsonObject {
  const copy = { ...event };
  delete copy[field];
  return copy;
}
