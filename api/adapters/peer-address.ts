/**
 * The peer address of a connection, from what a runtime adapter hands the fetch handler beside
 * the request: `@hono/node-server` (Node) hands `{ incoming }`, whose socket has
 * `remoteAddress`; `Deno.serve` hands its `ServeHandlerInfo`, whose `remoteAddr` has `hostname`.
 * Read by shape, so that the API itself knows neither runtime, and nothing in either adapter
 * changes.
 *
 * @module
 */

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

/**
 * The peer address in `connection`, or null when it holds none (a request handed to `fetch`
 * directly, as tests do).
 *
 * @example
 * ```ts
 * peerAddress({ remoteAddr: { hostname: '198.51.100.7', port: 50_000 } }); // '198.51.100.7'
 * peerAddress({ incoming: { socket: { remoteAddress: '::1' } } }); // '::1'
 * peerAddress(undefined); // null
 * ```
 */
export function peerAddress(connection: unknown): string | null {
  const node = field(field(field(connection, 'incoming'), 'socket'), 'remoteAddress');
  if (typeof node === 'string' && node !== '') return node;
  const deno = field(field(connection, 'remoteAddr'), 'hostname');
  if (typeof deno === 'string' && deno !== '') return deno;
  return null;
}
