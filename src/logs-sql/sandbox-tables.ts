/**
 * The tables of the sandboxed `logs.all` (issue 50; the reference system's
 * `priv/supabase/endpoints/logs.all.sql`): one per Logflare source, each the project's events of
 * that source within `iso_timestamp_start < timestamp <= iso_timestamp_end`, with four columns.
 * A caller's `sql` reads them as its final `SELECT` reads that query's CTEs.
 *
 * @module
 */
import type { LogflareSource } from '../events/logflare-sources.ts';

/** Each sandbox table with the source whose ring buffer it reads. */
export const SANDBOX_TABLES: Readonly<Record<string, LogflareSource>> = {
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

/** The columns of every sandbox table, as the reference system's CTEs select them. */
export const SANDBOX_COLUMNS = ['id', 'timestamp', 'event_message', 'metadata'] as const;

/** A column of a sandbox table. */
export type SandboxColumn = (typeof SANDBOX_COLUMNS)[number];

/** Whether `name` is a sandbox table. */
export function isSandboxTable(name: string): boolean {
  return Object.hasOwn(SANDBOX_TABLES, name);
}

/** Whether `name` is a column of every sandbox table. */
export function isSandboxColumn(name: string): name is SandboxColumn {
  return (SANDBOX_COLUMNS as readonly string[]).includes(name);
}
