/**
 * Validation of one event of a Logflare source (CONTRACT section 3.1), as normalized at ingest
 * (`api/logflare/normalize.ts`): a JSON object with a string `id`, a `timestamp` of either event
 * form, a string `project`; everything else is the source's own and kept as it is, within the
 * size and depth bounds every event has. The ingest route and the consumers of the source's
 * topic read the same normalized text, so both decide the same.
 *
 * @module
 */
import { checkTimestamp, decodeJson, type ParseOptions, reject, type Rejected } from './decode.ts';
import { exceedsDepth } from './depth.ts';
import { kongEdgeEvent } from './kong.ts';
import { EVENT_LIMITS } from './limits.ts';
import { KONG_SOURCE, type LogflareSource } from './logflare-sources.ts';
import { describeValue } from './schema.ts';
import { isJsonObject, type Json, type ParseResult, type SourceLogEvent } from './types.ts';

/** A string field's value, or its rejection when missing, empty, too long or ill-formed. */
function textField(value: Json | undefined, field: string, maxLength: number): string | Rejected {
  if (typeof value !== 'string' || value.length === 0) {
    return reject(
      'schema',
      `/${field} must be a non-empty string: got ${describeValue(value)}`,
      `/${field}`,
    );
  }
  if (value.length > maxLength) {
    return reject(
      'size',
      `/${field} must be at most ${maxLength} characters: got ${value.length}`,
      `/${field}`,
    );
  }
  if (!value.isWellFormed()) {
    return reject(
      'encoding',
      `/${field} must be well-formed Unicode: it holds a lone surrogate`,
      `/${field}`,
    );
  }
  return value;
}

/**
 * Validates one normalized event of Logflare source `source`.
 *
 * @example
 * ```ts
 * parseSourceLog('{"id":"a","timestamp":1795256130000000,"project":"default","metadata":{}}',
 *   'gotrue.logs.prod', { nowUs });
 * // { ok: true, event: { source: 'logflare', sourceName: 'gotrue.logs.prod', edge: null, … } }
 * ```
 */
export function parseSourceLog(
  bytes: Uint8Array | string,
  source: LogflareSource,
  options: ParseOptions,
): ParseResult<SourceLogEvent> {
  const decoded = decodeJson(bytes, options);
  if (!decoded.ok) return decoded;
  const { text, value } = decoded;
  if (!isJsonObject(value)) {
    return reject('schema', `an event must be a JSON object: got ${describeValue(value)}`);
  }
  const id = textField(value['id'], 'id', EVENT_LIMITS.idLength);
  if (typeof id !== 'string') return id;
  const project = textField(value['project'], 'project', EVENT_LIMITS.projectLength);
  if (typeof project !== 'string') return project;
  const message = value['event_message'];
  if (typeof message === 'string' && message.length > EVENT_LIMITS.eventMessageLength) {
    return reject(
      'size',
      `/event_message must be at most ${EVENT_LIMITS.eventMessageLength} characters: got ${message.length}`,
      '/event_message',
    );
  }
  if (exceedsDepth(value, EVENT_LIMITS.maxDepth + 1)) {
    return reject('size', `an event must not nest deeper than ${EVENT_LIMITS.maxDepth} levels`);
  }
  const timestampUs = checkTimestamp(value['timestamp'], options);
  if (typeof timestampUs !== 'number') return timestampUs;
  const edge = source === KONG_SOURCE ? kongEdgeEvent(value, { id, timestampUs, project }) : null;
  return {
    ok: true,
    event: { source: 'logflare', sourceName: source, id, timestampUs, project, text, edge },
  };
}
