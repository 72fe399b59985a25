/**
 * The sources a self-hosted Supabase stack's Vector posts to Logflare's ingest API
 * (`POST /api/logs?source_name=…`), one per container, plus the two more Logflare's Supabase mode
 * defines (CONTRACT section 3.1). Each is kept in a ring buffer of its own per project; Kong's
 * (`cloudflare.logs.prod`) also become `edge` events (see `kong.ts`).
 *
 * @module
 */

/** Every source name the Logflare ingest routes accept, as Logflare spells them. */
export const LOGFLARE_SOURCES = [
  'cloudflare.logs.prod',
  'gotrue.logs.prod',
  'postgREST.logs.prod',
  'realtime.logs.prod',
  'storage.logs.prod.2',
  'postgres.logs',
  'deno-relay-logs',
  'deno-subhosting-events',
  'pgbouncer.logs.prod',
] as const;

/** A Logflare source name. */
export type LogflareSource = (typeof LOGFLARE_SOURCES)[number];

/** Kong's source: its access and error lines are API-gateway requests too. */
export const KONG_SOURCE = 'cloudflare.logs.prod' satisfies LogflareSource;

/**
 * Whether `name` is one of {@link LOGFLARE_SOURCES}, exactly as spelled there.
 *
 * @example
 * ```ts
 * isLogflareSource('gotrue.logs.prod'); // true
 * isLogflareSource('GOTRUE.logs.prod'); // false
 * ```
 */
export function isLogflareSource(name: string): name is LogflareSource {
  return (LOGFLARE_SOURCES as readonly string[]).includes(name);
}
