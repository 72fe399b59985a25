/**
 * Kong's log events (source `cloudflare.logs.prod`, as a self-hosted stack's Vector sends them)
 * as `edge` events, so that they feed `logs.all` and `usage.api-counts` (CONTRACT section 3.1):
 *
 * - `id`, `timestamp`, `project` and `event_message` are the event's own;
 * - `metadata` is the event's `metadata` object in the reference system's warehouse form: every
 *   object becomes a one-element array of records, recursively (`{"request":{"method":"GET"}}`
 *   becomes `[{"request":[{"method":"GET"}]}]`), and `request.path` is split at its first `?` into
 *   `path` and `search`, as the platform's edge logs carry them;
 * - its one request has the project ref as its host (Kong's lines carry none that names the
 *   project) and that `path`.
 *
 * An event whose `metadata.request` is not an object is no request: it stays in its source's
 * ring buffer only.
 *
 * @example
 * ```ts
 * kongEdgeEvent({ metadata: { request: { method: 'GET', path: '/rest/v1/t?select=*' } }, … },
 *   { id: 'a', timestampUs, project: 'default' });
 * // { source: 'edge', requests: [{ host: 'default', path: '/rest/v1/t' }], metadata: [{ request:
 * //   [{ method: 'GET', path: '/rest/v1/t', search: '?select=*' }] }], … }
 * ```
 *
 * @module
 */
import { type EdgeEvent, isJsonObject, type Json, type JsonObject } from './types.ts';
import { recordOf } from './warehouse-form.ts';

/** What identifies the event, as normalized at ingest. */
export interface KongIdentity {
  readonly id: string;
  readonly timestampUs: number;
  readonly project: string;
}

/** `request` with its `path` split into `path` and `search` at the first `?`. */
function splitPath(request: JsonObject): { request: JsonObject; path: string | null } {
  const path = request['path'];
  if (typeof path !== 'string') return { request, path: null };
  const query = path.indexOf('?');
  if (query === -1) return { request, path };
  const split: JsonObject = {};
  for (const key of Object.keys(request)) {
    if (key === 'path') {
      split['path'] = path.slice(0, query);
      split['search'] = path.slice(query);
    } else if (key !== 'search') split[key] = request[key] as Json;
  }
  return { request: split, path: path.slice(0, query) };
}

/**
 * The edge event a Kong event stands for, or null when its `metadata.request` is not an object.
 */
export function kongEdgeEvent(event: JsonObject, identity: KongIdentity): EdgeEvent | null {
  const metadata = event['metadata'];
  if (!isJsonObject(metadata)) return null;
  const request = metadata['request'];
  if (!isJsonObject(request)) return null;
  const split = splitPath(request);
  const record = recordOf({ ...metadata, request: split.request });
  const message = event['event_message'];
  const eventMessage = typeof message === 'string' ? message : null;
  const { id, timestampUs, project } = identity;
  const edgeMetadata = [record];
  const raw = JSON.stringify({
    id,
    timestamp: timestampUs,
    project,
    event_message: eventMessage,
    metadata: edgeMetadata,
  });
  return {
    source: 'edge',
    id,
    timestampUs,
    project,
    eventMessage,
    metadata: edgeMetadata,
    requests: [{ host: project, path: split.path }],
    raw,
  };
}
