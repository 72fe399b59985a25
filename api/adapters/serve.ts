/**
 * What a runtime adapter provides: the API's fetch handler on a listening socket.
 *
 * @module
 */
import { DEFAULT_HTTP_LIMITS } from '../../src/config.ts';
import type { Logger } from '../../src/logger.ts';
import type { Connection } from '../connection.ts';
import type { Refusal } from '../refusals.ts';
import type { RequestTurns } from './request-turns.ts';

/**
 * Bounds on connections and slow clients, set deliberately rather than left to the runtime's
 * defaults (Node holds a request for 5 minutes and accepts any number of connections).
 */
export interface ServerLimits {
  /** Longest time from a request's first byte to its last, in ms; then 408. Default 30,000. */
  readonly requestTimeoutMs?: number;
  /** Longest wait for a request's header fields, in ms; then 408. Default 10,000. */
  readonly headersTimeoutMs?: number;
  /** Most open connections; a connection beyond is closed at once. Default 1,024. */
  readonly maxConnections?: number;
  /**
   * Most open connections from one client address (an IPv6 client: from one /64); a connection
   * beyond is closed at once, so that one source cannot take every place under
   * `maxConnections`. 0: no such limit (behind a trusted proxy, where every connection comes from
   * the proxy's address). Default 64.
   */
  readonly maxConnectionsPerAddress?: number;
  /**
   * Longest time an answer may wait for the client to read it, in ms: a connection with bytes
   * of an answer still to send and none taken by the client for this long is cut. Default
   * 10,000.
   */
  readonly writeTimeoutMs?: number;
  /** How often the timeouts are checked, in ms. Default 1,000. */
  readonly checkIntervalMs?: number;
}

/** The defaults of {@link ServerLimits}. */
export const DEFAULT_SERVER_LIMITS: Required<ServerLimits> = {
  ...DEFAULT_HTTP_LIMITS,
  checkIntervalMs: 1_000,
};

/** Where to listen, and with what bounds. */
export interface ListenOptions {
  readonly hostname: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly limits?: ServerLimits;
  /** How many requests are handled at once (request-turns.ts). Default: a new `RequestTurns`. */
  readonly turns?: RequestTurns;
  /** Told of every refusal, for the metrics and the log. Default: nobody. */
  readonly onRefusal?: (reason: Refusal) => void;
  /**
   * Where an error that escaped the handler goes (the adapter answers 500 `internal`, whose
   * message says the error is logged).
   */
  readonly logger: Logger;
}

/** A listening server. */
export interface Served {
  /** The base URL, with the port actually bound, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Stops accepting connections and lets requests in flight finish. */
  close(): Promise<void>;
}

/**
 * A runtime adapter. It hands `fetch` each request with its {@link Connection}, read from the
 * runtime's own objects, so that nothing beyond the adapters knows the runtime.
 */
export type Serve = (
  fetch: (request: Request, connection: Connection) => Promise<Response>,
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
