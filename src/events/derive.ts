/**
 * What the endpoints read from a validated event, computed once at parse time: the requests
 * of an `edge` event and the invocations of a `function-edge` event.
 *
 * @module
 */

import type { EdgeRequest, Invocation } from './types.ts';
import type { EdgeMetadata, FunctionEdgeMetadata, RawRequest } from './schema.ts';

/**
 * One `EdgeRequest` per (metadata entry, request entry) pair, in document order.
 *
 * - host: `request.host` when a non-empty string, else the hostname of `request.url`, else null.
 * - path: `request.path` when a string, else the pathname of `request.url`, else null.
 *
 * An unparseable `url` contributes nothing (host and path stay null).
 *
 * @example
 * ```ts
 * edgeRequests([{ request: [{ url: 'https://abc.supabase.co/rest/v1/t?x=1' }] }]);
 * // [{ host: 'abc.supabase.co', path: '/rest/v1/t' }]
 * ```
 */
export function edgeRequests(metadata: readonly EdgeMetadata[]): EdgeRequest[] {
  const requests: EdgeRequest[] = [];
  for (const entry of metadata) {
    const entryRequests = entry.request;
    if (entryRequests === undefined) continue;
    for (const request of entryRequests) requests.push(edgeRequest(request));
  }
  return requests;
}

function edgeRequest(request: RawRequest): EdgeRequest {
  let host = typeof request.host === 'string' && request.host !== '' ? request.host : null;
  let path = typeof request.path === 'string' ? request.path : null;
  if ((host === null || path === null) && typeof request.url === 'string') {
    const url = URL.parse(request.url);
    if (url !== null) {
      host ??= url.hostname;
      path ??= url.pathname;
    }
  }
  return { host, path };
}

/**
 * The first request whose host, taken from its `url`, is longer than `maxLength` (a `host`
 * field is bounded by the schema already), as the JSON pointer of that `url` and the host's
 * length; null when there is none. `requests` are {@link edgeRequests} of `metadata`.
 *
 * @example
 * ```ts
 * const metadata = [{ request: [{ url: `https://${'a'.repeat(2000)}.example/` }] }];
 * longUrlHost(metadata, edgeRequests(metadata), 1024);
 * // { path: '/metadata/0/request/0/url', length: 2008 }
 * ```
 */
export function longUrlHost(
  metadata: readonly EdgeMetadata[],
  requests: readonly EdgeRequest[],
  maxLength: number,
): { path: string; length: number } | null {
  let index = 0;
  while (index < requests.length && (requests[index]?.host?.length ?? 0) <= maxLength) index++;
  if (index === requests.length) return null;
  const length = requests[index]?.host?.length ?? 0;
  for (const [entry, { request }] of metadata.entries()) {
    const count = request?.length ?? 0;
    if (index < count) return { path: `/metadata/${entry}/request/${index}/url`, length };
    index -= count;
  }
  return null;
}

/**
 * The JSON pointer of the first field that names a store key (project, host, function) and is
 * not well-formed Unicode, i.e. holds a lone surrogate (valid in JSON text as `\ud800`, but no
 * store key can be built from it); null when there is none.
 *
 * @example
 * ```ts
 * illFormedKeyField({ project: 'p\ud800', metadata: [] }); // '/project'
 * ```
 */
export function illFormedKeyField(event: {
  readonly project?: unknown;
  readonly metadata: readonly (EdgeMetadata | FunctionEdgeMetadata)[];
}): string | null {
  if (isIllFormed(event.project)) return '/project';
  // Index loops: this runs on every event, and `entries()` builds an iterator and a pair per item.
  const { metadata } = event;
  for (let i = 0; i < metadata.length; i++) {
    const entry = metadata[i];
    if (entry === undefined) continue;
    if ('project_ref' in entry && isIllFormed(entry.project_ref)) {
      return `/metadata/${i}/project_ref`;
    }
    if ('function_id' in entry && isIllFormed(entry.function_id)) {
      return `/metadata/${i}/function_id`;
    }
    const requests = entry.request;
    if (requests === undefined) continue;
    for (let j = 0; j < requests.length; j++) {
      if (isIllFormed(requests[j]?.host)) return `/metadata/${i}/request/${j}/host`;
    }
  }
  return null;
}

function isIllFormed(value: unknown): boolean {
  return typeof value === 'string' && !value.isWellFormed();
}

/**
 * One `Invocation` per (metadata entry, response entry) pair, in document order. A metadata
 * entry without response entries yields none.
 *
 * @example
 * ```ts
 * invocations([{ project_ref: 'p', function_id: 'f', execution_time_ms: 4.2,
 *   response: [{ status_code: 200 }] }]);
 * // [{ projectRef: 'p', functionId: 'f', executionTimeMs: 4.2, statusCode: 200 }]
 * ```
 */
export function invocations(metadata: readonly FunctionEdgeMetadata[]): Invocation[] {
  const result: Invocation[] = [];
  for (const entry of metadata) {
    const responses = entry.response;
    if (responses === undefined) continue;
    const projectRef = entry.project_ref;
    const functionId = typeof entry.function_id === 'string' ? entry.function_id : null;
    const executionTimeMs = typeof entry.execution_time_ms === 'number'
      ? entry.execution_time_ms
      : null;
    for (const response of responses) {
      const statusCode = typeof response.status_code === 'number' ? response.status_code : null;
      result.push({ projectRef, functionId, executionTimeMs, statusCode });
    }
  }
  return result;
}
