/**
 * The reasons a runtime adapter refuses or cuts a connection, and the head bound behind one of
 * them, kept here rather than in an adapter so that the metrics, the refusal log and the OpenAPI
 * document name them without importing the edge.
 *
 * @module
 */

/**
 * Largest request head (request line and header fields) the Node adapter reads, in bytes; the
 * OpenAPI document states it.
 */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Why the server refused or cut a connection (or answered a request itself) instead of letting
 * the API answer it:
 *
 * - `connection_cap`: one connection beyond `maxConnections`, closed at once;
 * - `address_cap`: one beyond `maxConnectionsPerAddress`, closed at once;
 * - `no_request`: nothing was sent within the header timeout (408);
 * - `request_timeout`: a request begun and not complete within its timeout (408);
 * - `head_too_large`: request line and header fields over {@link MAX_HEAD_BYTES} (431);
 * - `bad_request`: not valid HTTP/1.1, no or a malformed `Host`, `OPTIONS *` (400);
 * - `slow_reader`: an answer the client did not read within `writeTimeoutMs`, cut.
 */
export const REFUSALS = [
  'connection_cap',
  'address_cap',
  'no_request',
  'request_timeout',
  'head_too_large',
  'bad_request',
  'slow_reader',
] as const;

/** One of {@link REFUSALS}. */
export type Refusal = typeof REFUSALS[number];
