/**
 * The fast path of `parse` (issue 48, item 3): one walk over a parsed event that checks the
 * schema's constraints (`schema.ts`), the depth bound, the well-formedness of the fields that name
 * store keys and the request-host bounds, and derives the requests or invocations as it goes, in
 * place of ajv, `exceedsDepth`, `illFormedKeyField` and `derive.ts`'s walks. It answers only what it
 * proves valid: anything it cannot prove (a failed check, or a bound it cannot decide without
 * counting code points) gives null, and `parse` then takes the full path, which decides and words
 * the rejection. So the two accept the same events with the same fields, and reject with the same
 * messages (test/events/walk.test.ts runs both over generated, malformed and mutated events).
 *
 * Lengths: the schema bounds strings in code points; a string of at most N UTF-16 units has at
 * most N code points, and a non-empty one at least one, so the walk accepts by `length` and leaves
 * a longer one (which may still fit in code points) to the full path.
 *
 * @module
 */
import { exceedsDepth } from './depth.ts';
import { EVENT_LIMITS } from './limits.ts';
import type { EdgeMetadata, FunctionEdgeMetadata } from './schema.ts';
import { type EdgeRequest, type Invocation, isJsonObject, type Json } from './types.ts';

/** An edge event's fields the walk proved valid, and its requests. */
export interface WalkedEdge {
  readonly id: string;
  readonly timestamp: string | number;
  readonly project: string;
  readonly eventMessage: string | null;
  readonly metadata: EdgeMetadata[];
  readonly requests: EdgeRequest[];
}

/** A function-edge event's fields the walk proved valid, and its invocations. */
export interface WalkedFunctionEdge {
  readonly id: string;
  readonly timestamp: string | number;
  readonly project: string;
  readonly eventMessage: string | null;
  readonly metadata: FunctionEdgeMetadata[];
  readonly invocations: Invocation[];
}

/** `value` when it is a string of 1 to `max` UTF-16 units; else null. */
function nonEmpty(value: Json | undefined, max: number): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

/** Whether `value` is absent or a string of at most `max` UTF-16 units. */
function optionalText(value: Json | undefined, max: number): boolean {
  return value === undefined || (typeof value === 'string' && value.length <= max);
}

/** The event's `event_message` (absent: null), or undefined when the schema refuses it. */
function eventMessage(value: Json | undefined): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && value.length <= EVENT_LIMITS.eventMessageLength
    ? value
    : undefined;
}

/** The top-level fields both sources share, or null when refused. */
function common(event: { [key: string]: Json }): {
  id: string;
  timestamp: string | number;
  eventMessage: string | null;
} | null {
  const id = nonEmpty(event['id'], EVENT_LIMITS.idLength);
  const { timestamp, project } = event;
  const message = eventMessage(event['event_message']);
  if (id === null || message === undefined) return null;
  if (typeof timestamp !== 'string' && typeof timestamp !== 'number') return null;
  // `project` names store keys wherever it appears (derive.ts's `illFormedKeyField`).
  if (typeof project === 'string' && !project.isWellFormed()) return null;
  return { id, timestamp, eventMessage: message };
}

/**
 * The request of `request` as `derive.ts`'s `edgeRequest` makes it (`derive`: else its host and
 * path are not needed, and left null), or null when refused.
 */
function walkRequest(request: Json | undefined, derive: boolean): EdgeRequest | null {
  if (!isJsonObject(request)) return null;
  const { host, path, url } = request;
  if (!optionalText(host, EVENT_LIMITS.hostLength)) return null;
  if (!optionalText(path, EVENT_LIMITS.urlLength) || !optionalText(url, EVENT_LIMITS.urlLength)) {
    return null;
  }
  if (typeof host === 'string' && !host.isWellFormed()) return null;
  if (!derive) return NO_REQUEST;
  let derivedHost = typeof host === 'string' && host !== '' ? host : null;
  let derivedPath = typeof path === 'string' ? path : null;
  if ((derivedHost === null || derivedPath === null) && typeof url === 'string') {
    const parsed = URL.parse(url);
    if (parsed !== null) {
      derivedHost ??= parsed.hostname;
      derivedPath ??= parsed.pathname;
    }
  }
  // A host taken from a URL is bounded here, not by the schema: the full path words it.
  if (derivedHost !== null && derivedHost.length > EVENT_LIMITS.hostLength) return null;
  return { host: derivedHost, path: derivedPath };
}

/** What a request of a function-edge event gives: nothing is derived from it. */
const NO_REQUEST: EdgeRequest = { host: null, path: null };

/** Adds the requests of an entry's `request` to `into` (null: checked only); false when refused. */
function walkRequests(list: Json | undefined, into: EdgeRequest[] | null): boolean {
  if (list === undefined) return true;
  if (!Array.isArray(list) || list.length > EVENT_LIMITS.requestEntries) return false;
  for (let i = 0; i < list.length; i++) {
    const request = walkRequest(list[i], into !== null);
    if (request === null) return false;
    into?.push(request);
  }
  return true;
}

/** The status codes of an entry's `response` (null where absent or null), or null when refused. */
function walkResponses(list: Json | undefined): (number | null)[] | null {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.length > EVENT_LIMITS.responseEntries) return null;
  const codes: (number | null)[] = [];
  for (let i = 0; i < list.length; i++) {
    const response = list[i];
    if (!isJsonObject(response)) return null;
    const code = response['status_code'];
    if (code === undefined || code === null) codes.push(null);
    else if (typeof code === 'number' && Number.isInteger(code) && code >= 100 && code <= 599) {
      codes.push(code);
    } else return null;
  }
  return codes;
}

/** Whether `value` is a string holding a lone surrogate. */
function illFormed(value: Json | undefined): boolean {
  return typeof value === 'string' && !value.isWellFormed();
}

/** The metadata array, bounded in entries and depth, or null when refused. */
function metadataOf(value: Json | undefined, minEntries: number): Json[] | null {
  if (!Array.isArray(value)) return null;
  if (value.length < minEntries || value.length > EVENT_LIMITS.metadataEntries) return null;
  return exceedsDepth(value, EVENT_LIMITS.maxDepth) ? null : value;
}

/** How many distinct hosts `requests` name, up to the first beyond `limit`. */
function hostsBeyond(requests: readonly EdgeRequest[], limit: number): boolean {
  if (requests.length <= limit) return false;
  const hosts = new Set<string>();
  for (const { host } of requests) if (host !== null) hosts.add(host);
  return hosts.size > limit;
}

/**
 * The fields and requests of an `edge` event `value`, or null when the full path must decide.
 *
 * @example
 * ```ts
 * walkEdge(JSON.parse(text))?.requests; // [{ host: 'abc.supabase.co', path: '/rest/v1/t' }]
 * ```
 */
export function walkEdge(value: unknown): WalkedEdge | null {
  if (!isJsonObject(value)) return null;
  const fields = common(value);
  const project = nonEmpty(value['project'], EVENT_LIMITS.projectLength);
  const metadata = metadataOf(value['metadata'], 0);
  if (fields === null || project === null || metadata === null) return null;
  const requests: EdgeRequest[] = [];
  for (let i = 0; i < metadata.length; i++) {
    const entry = metadata[i];
    if (!isJsonObject(entry) || !walkRequests(entry['request'], requests)) return null;
    if (walkResponses(entry['response']) === null) return null;
    // These name store keys in either source's entries (derive.ts's `illFormedKeyField`).
    if (illFormed(entry['project_ref']) || illFormed(entry['function_id'])) return null;
  }
  if (hostsBeyond(requests, EVENT_LIMITS.hostsPerEvent)) return null;
  // The walk checked every field the schema names: the entries are what its type says.
  return { ...fields, project, metadata: metadata as EdgeMetadata[], requests };
}

/**
 * The fields and invocations of a `function-edge` event `value`, or null when the full path must
 * decide (also when its entries name different projects, which the full path words).
 *
 * @example
 * ```ts
 * walkFunctionEdge(JSON.parse(text))?.invocations; // [{ projectRef: 'p', functionId: 'f', … }]
 * ```
 */
export function walkFunctionEdge(value: unknown): WalkedFunctionEdge | null {
  if (!isJsonObject(value)) return null;
  const fields = common(value);
  const metadata = metadataOf(value['metadata'], 1);
  if (fields === null || metadata === null) return null;
  const invocations: Invocation[] = [];
  let project: string | null = null;
  for (let i = 0; i < metadata.length; i++) {
    const entry = metadata[i];
    if (!isJsonObject(entry)) return null;
    const projectRef = nonEmpty(entry['project_ref'], EVENT_LIMITS.projectLength);
    if (projectRef === null || !projectRef.isWellFormed()) return null;
    if (project === null) project = projectRef;
    else if (projectRef !== project) return null;
    const functionId = entry['function_id'];
    if (functionId !== undefined && functionId !== null) {
      if (typeof functionId !== 'string' || functionId.length > EVENT_LIMITS.functionIdLength) {
        return null;
      }
      if (!functionId.isWellFormed()) return null;
    }
    const time = entry['execution_time_ms'];
    if (
      time !== undefined && time !== null &&
      (typeof time !== 'number' || time < 0 || time > EVENT_LIMITS.maxExecutionTimeMs)
    ) return null;
    if (!walkRequests(entry['request'], null)) return null;
    const codes = walkResponses(entry['response']);
    if (codes === null) return null;
    for (const statusCode of codes) {
      invocations.push({
        projectRef,
        functionId: typeof functionId === 'string' ? functionId : null,
        executionTimeMs: typeof time === 'number' ? time : null,
        statusCode,
      });
    }
  }
  if (project === null) return null;
  // The walk checked every field the schema names: the entries are what its type says.
  return { ...fields, project, metadata: metadata as FunctionEdgeMetadata[], invocations };
}
