/**
 * What a runtime adapter provides: the API's fetch handler on a listening socket.
 *
 * @module
 */

/** Where to listen. */
export interface ListenOptions {
  readonly hostname: string;
  /** 0 picks a free port. */
  readonly port: number;
}

/** A listening server. */
export interface Served {
  /** The base URL, with the port actually bound, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Stops accepting connections and lets requests in flight finish. */
  close(): Promise<void>;
}

/** A runtime adapter. */
export type Serve = (
  fetch: (request: Request) => Promise<Response>,
  options: ListenOptions,
) => Promise<Served>;

/**
 * The base URL of a bound address (IPv6 in brackets; the wildcard addresses as loopback, which
 * is what a local caller types).
 *
 * @example
 * ```ts
 * baseUrl('0.0.0.0', 8080); // 'http://127.0.0.1:8080'
 * baseUrl('::1', 8080); // 'http://[::1]:8080'
 * ```
 */
export function baseUrl(hostname: string, port: number): string {
  const host = hostname === '0.0.0.0' ? '127.0.0.1' : hostname === '::' ? '::1' : hostname;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
