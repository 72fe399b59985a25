/**
 * Generated events of every Logflare source, shaped as a self-hosted stack's Vector sends them,
 * with the fields Studio's queries read varied (statuses, severities, levels, paths, users), and
 * an evaluation of Studio's queries over them written apart from the service: plain filters,
 * sorts and counts over the generated objects.
 *
 * @module
 */
import type { StudioTable } from '../fixtures/supabase/studio-sql.ts';

/** A generated event as posted (timestamp as RFC 3339 text) and as kept (µs). */
export interface StudioEvent {
  readonly table: StudioTable;
  readonly id: string;
  readonly timestampUs: number;
  readonly event_message: string;
  readonly metadata: Record<string, unknown>;
}

/** Each table's Logflare source (the reference system's `logs.all.sql`). */
export const SOURCE_OF: Record<StudioTable, string> = {
  edge_logs: 'cloudflare.logs.prod',
  postgres_logs: 'postgres.logs',
  function_edge_logs: 'deno-relay-logs',
  function_logs: 'deno-subhosting-events',
  auth_logs: 'gotrue.logs.prod',
  realtime_logs: 'realtime.logs.prod',
  storage_logs: 'storage.logs.prod.2',
  postgrest_logs: 'postgREST.logs.prod',
  pgbouncer_logs: 'pgbouncer.logs.prod',
};

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

function metadataOf(table: StudioTable, next: () => number, i: number): Record<string, unknown> {
  switch (table) {
    case 'edge_logs':
      return {
        request: {
          method: pick(next, ['GET', 'GET', 'POST', 'PATCH', 'DELETE']),
          path: pick(next, [
            '/rest/v1/todos',
            '/rest/v1/todos?select=*',
            '/storage/v1/object/public/a.png',
            '/auth/v1/token',
            '/graphql/v1',
            '/realtime/v1/websocket',
          ]),
          headers: { x_real_ip: i % 9 === 0 ? null : `10.0.0.${i % 7}` },
          cf: { country: pick(next, ['DE', 'US', 'BR']) },
        },
        response: {
          status_code: pick(next, [200, 200, 201, 204, 301, 400, 404, 500, 503]),
          origin_time: pick(next, [12, 250, 999, 1000, 1001, 4500]),
          headers: { cf_cache_status: pick(next, ['HIT', 'MISS', 'EXPIRED', 'DYNAMIC']) },
        },
      };
    case 'postgres_logs':
      return {
        host: 'db-default',
        parsed: {
          error_severity: pick(next, ['LOG', 'LOG', 'ERROR', 'FATAL', 'WARNING', 'PANIC']),
          user_name: pick(next, ['postgres', 'authenticator', 'supabase_admin']),
          application_name: pick(next, ['psql', 'pg_cron', 'postgrest']),
          detail: i % 3 === 0 ? `detail ${i}` : undefined,
        },
      };
    case 'function_logs':
      return {
        project_ref: 'default',
        level: pick(next, ['log', 'info', 'error', 'warning', 'debug']),
        event_type: 'Log',
        function_id: pick(next, ['f-hello', 'f-world']),
        execution_id: `x${i}`,
      };
    case 'function_edge_logs':
      return {
        project_ref: 'default',
        response: { status_code: pick(next, [200, 404, 500]) },
        request: { method: 'POST', pathname: '/functions/v1/hello' },
      };
    case 'auth_logs':
      return {
        level: pick(next, ['info', 'info', 'warning', 'error', 'fatal']),
        status: pick(next, [200, 400, 422, 500, '503', 'n/a']),
        path: pick(next, ['/token', '/signup', '/verify', '/user', '/logout', '/admin/users']),
        msg: 'request completed',
      };
    default:
      return { project: 'default', level: pick(next, ['info', 'error']) };
  }
}

function messageOf(table: StudioTable, next: () => number, metadata: Record<string, unknown>) {
  const words = pick(next, ['request completed', 'COMMIT', 'error: timeout', 'Error in job']);
  if (table === 'auth_logs') return JSON.stringify({ level: metadata.level, msg: words });
  if (table === 'postgres_logs' && next() < 0.2) return `cron job 3 ${words}`;
  return `${table} ${words}`;
}

/**
 * `count` events of each table, one every `stepUs` back from `newestUs` (events of different
 * tables interleaved, a few sharing a millisecond so that paging meets them).
 */
export function studioEvents(newestUs: number, count: number, stepUs: number): StudioEvent[] {
  const next = random(50);
  const events: StudioEvent[] = [];
  for (const table of Object.keys(SOURCE_OF) as StudioTable[]) {
    for (let i = 0; i < count; i++) {
      const metadata = metadataOf(table, next, i);
      // Every fifth event is 300 µs older than the one before (the same millisecond when
      // `stepUs` is whole milliseconds and `newestUs` is past the 300th µs of its own).
      const timestampUs = newestUs - i * stepUs + (i % 5 === 2 ? stepUs - 300 : 0);
      events.push({
        table,
        id: `${table}-${i}`,
        timestampUs,
        event_message: messageOf(table, next, metadata),
        metadata: JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>,
      });
    }
  }
  return events;
}

/** The body Vector would post for `event`. */
export function posted(event: StudioEvent): Record<string, unknown> {
  const seconds = Math.floor(event.timestampUs / 1e6);
  const fraction = String(event.timestampUs % 1e6).padStart(6, '0');
  return {
    id: event.id,
    timestamp: `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`,
    event_message: event.event_message,
    metadata: event.metadata,
    ...(['realtime_logs', 'storage_logs', 'function_logs', 'function_edge_logs'].includes(
        event.table,
      )
      ? {}
      : { project: 'default' }),
  };
}

/** The value at `path` of an event's metadata, or null. */
export function at(event: StudioEvent, path: string): unknown {
  let value: unknown = event.metadata;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value === undefined ? null : value;
}

/** The events of `table` in `(startUs, endUs]`, newest first (ties by id, as unordered). */
export function tableRows(
  events: readonly StudioEvent[],
  table: StudioTable,
  startUs: number | null,
  endUs: number | null,
): StudioEvent[] {
  return events
    .filter((e) => e.table === table)
    .filter((e) =>
      (startUs === null || e.timestampUs > startUs) && (endUs === null || e.timestampUs <= endUs)
    )
    .sort((a, b) => b.timestampUs - a.timestampUs);
}

/** BigQuery's SAFE_CAST(x AS INT64) of a JSON value. */
export function safeInt(value: unknown): number | null {
  if (typeof value === 'number') return Math.round(value);
  return typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : null;
}

/** The warehouse form, written apart from the service's: objects as one-element arrays. */
export function records(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => isObject(item) ? fieldsOf(item) : records(item));
  }
  return isObject(value) ? [fieldsOf(value)] : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fieldsOf(object: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(object)) record[key] = records(inner);
  return record;
}
