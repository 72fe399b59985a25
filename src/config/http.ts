/**
 * The HTTP server's bounds and the API's rate limits (`HTTP_*`, `RATE_LIMIT_*`): read together
 * because a proxy declared for the rate limit (`RATE_LIMIT_ADDRESS_FROM=<header>`) changes the
 * default of the per-address connection cap.
 *
 * @module
 */
import { ConfigError, type Env, flag, integer, text } from './read.ts';

/** HTTP server bounds unless configured (`HTTP_REQUEST_TIMEOUT_MS`, …), see docs/API.md. */
export const DEFAULT_HTTP_LIMITS = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 64,
  writeTimeoutMs: 10_000,
} as const;

/**
 * Most bytes of one endpoint answer unless configured (`HTTP_ANSWER_MAX_BYTES`): rows beyond are
 * cut whole. 100 `logs.all` entries of 128 KiB would otherwise be 12.8 MB per answer, held for
 * as long as its client takes to read it.
 */
export const DEFAULT_ANSWER_MAX_BYTES = 2 * 1024 * 1024;

/** Where the address of a request without a valid key is read from, for its rate limit. */
export type AddressSource =
  /** The connection's peer address. */
  | { readonly kind: 'socket' }
  /** Nowhere: requests without a valid key are not limited (a proxy in front limits them). */
  | { readonly kind: 'off' }
  /** The last address of this header, as the trusted proxy in front appends it. */
  | { readonly kind: 'header'; readonly name: string };

/** The API's rate limits (`RATE_LIMIT_*`); see docs/API.md. */
export interface RateLimitConfig {
  /** Requests a second each API key (and each address, without a valid key) may send. */
  readonly perSecond: number;
  /** Requests a client may send at once, beyond the rate: the size of its bucket. */
  readonly burst: number;
  readonly addressFrom: AddressSource;
  /** Most client addresses whose buckets are kept (the least recently seen goes first). */
  readonly maxAddresses: number;
  /**
   * Milliseconds of costly pattern matching (beyond a pattern's first slice) each key earns per
   * second; its share holds at most one matching budget.
   */
  readonly matchMsPerSecond: number;
}

/** The rate limits unless configured. */
export const DEFAULT_RATE_LIMIT: RateLimitConfig = {
  perSecond: 1_000,
  burst: 2_000,
  addressFrom: { kind: 'socket' },
  maxAddresses: 10_000,
  matchMsPerSecond: 100,
};

/** The HTTP part of the configuration. */
export interface HttpConfig {
  /** Longest time from a request's first byte to its last, in ms (then 408). */
  readonly httpRequestTimeoutMs: number;
  /** Longest wait for a request's header fields, in ms (then 408). */
  readonly httpHeadersTimeoutMs: number;
  /** Most open HTTP connections; a connection beyond is closed at once. */
  readonly httpMaxConnections: number;
  /**
   * Most open HTTP connections from one client address (IPv6: one /64); 0: no limit. Default 64,
   * or 0 when `RATE_LIMIT_ADDRESS_FROM` names a header: a trusted proxy is in front, and every
   * connection comes from its address.
   */
  readonly httpMaxConnectionsPerAddress: number;
  /** Longest wait for a client to read any of an answer, in ms (then the connection is cut). */
  readonly httpWriteTimeoutMs: number;
  /** Most bytes of one endpoint answer: rows beyond are cut whole (and a header says so). */
  readonly answerMaxBytes: number;
  /** Rate limits per key and per address; null: none (`RATE_LIMIT=off`). */
  readonly rateLimit: RateLimitConfig | null;
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

function addressSource(env: Env): AddressSource {
  const value = text(env, 'RATE_LIMIT_ADDRESS_FROM');
  if (value === null || value.toLowerCase() === 'socket') return { kind: 'socket' };
  if (value.toLowerCase() === 'off') return { kind: 'off' };
  if (!HEADER_NAME.test(value)) {
    throw new ConfigError(
      'RATE_LIMIT_ADDRESS_FROM',
      value,
      'socket (the default), off, or the name of a header a trusted proxy sets, ' +
        'e.g. X-Forwarded-For',
    );
  }
  return { kind: 'header', name: value };
}

function rateLimit(env: Env, addressFrom: AddressSource): RateLimitConfig | null {
  if (!flag(env, 'RATE_LIMIT', true)) return null;
  const defaults = DEFAULT_RATE_LIMIT;
  return {
    perSecond: integer(env, 'RATE_LIMIT_PER_SECOND', defaults.perSecond, 1, 1_000_000),
    burst: integer(env, 'RATE_LIMIT_BURST', defaults.burst, 1, 10_000_000),
    addressFrom,
    maxAddresses: integer(env, 'RATE_LIMIT_MAX_ADDRESSES', defaults.maxAddresses, 1, 10_000_000),
    matchMsPerSecond: integer(
      env,
      'RATE_LIMIT_MATCH_MS_PER_SECOND',
      defaults.matchMsPerSecond,
      1,
      1_000,
    ),
  };
}

/** Reads the HTTP part of the configuration from `env`; throws {@link ConfigError}. */
export function httpConfig(env: Env): HttpConfig {
  // Read even when rate limits are off: a header still says a proxy is in front.
  const addressFrom = addressSource(env);
  return {
    httpRequestTimeoutMs: integer(
      env,
      'HTTP_REQUEST_TIMEOUT_MS',
      DEFAULT_HTTP_LIMITS.requestTimeoutMs,
      1_000,
      600_000,
    ),
    httpHeadersTimeoutMs: integer(
      env,
      'HTTP_HEADERS_TIMEOUT_MS',
      DEFAULT_HTTP_LIMITS.headersTimeoutMs,
      1_000,
      600_000,
    ),
    httpMaxConnections: integer(
      env,
      'HTTP_MAX_CONNECTIONS',
      DEFAULT_HTTP_LIMITS.maxConnections,
      1,
      1_000_000,
    ),
    httpMaxConnectionsPerAddress: integer(
      env,
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
      addressFrom.kind === 'header' ? 0 : DEFAULT_HTTP_LIMITS.maxConnectionsPerAddress,
      0,
      1_000_000,
    ),
    httpWriteTimeoutMs: integer(
      env,
      'HTTP_WRITE_TIMEOUT_MS',
      DEFAULT_HTTP_LIMITS.writeTimeoutMs,
      1_000,
      600_000,
    ),
    answerMaxBytes: integer(
      env,
      'HTTP_ANSWER_MAX_BYTES',
      DEFAULT_ANSWER_MAX_BYTES,
      256 * 1024,
      256 * 1024 * 1024,
    ),
    rateLimit: rateLimit(env, addressFrom),
  };
}
