/**
 * API-key authentication, with the reference system's three forms and its precedence: the
 * token of `Authorization: Bearer <token>`, else the `X-API-KEY` header (any letter case: HTTP
 * header names are case-insensitive), else the `api_key` query parameter. The first form
 * present is the one checked: a wrong Bearer token is refused even beside a right `X-API-KEY`.
 * Compared in constant time: both sides are written into buffers of one width (the length in
 * bytes, then the bytes, zero-padded to the longest key the configuration allows) and every
 * configured key is compared whole, so the comparison never depends on where the strings differ
 * nor on their lengths. Keys never reach a log line, a
 * metric or an error message, wherever they arrive from (request logs carry the path without
 * its query string).
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import type { ApiEnv } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readParam } from '../../src/contract/params/common.ts';
import { API_KEY_MAX_LENGTH } from '../../src/config.ts';

/** The header that carries the key (the form the banner and the docs show). */
export const API_KEY_HEADER = 'X-API-KEY';

/** The query parameter that may carry the key. */
export const API_KEY_PARAMETER = 'api_key';

/** Where a presented key came from. */
export type KeySource = 'Authorization: Bearer' | typeof API_KEY_HEADER | typeof API_KEY_PARAMETER;

/**
 * The key a request presents, by the precedence of the reference system; null when none is.
 *
 * @example
 * ```ts
 * presentedKey(new Request('http://x/?api_key=k', { headers: { Authorization: 'Bearer t' } }));
 * // { key: 't', source: 'Authorization: Bearer' }
 * ```
 */
export function presentedKey(request: Request): { key: string; source: KeySource } | null {
  const authorization = request.headers.get('Authorization');
  if (authorization !== null) {
    // Present, it is the form checked: anything but a Bearer token is no key (never a fallback).
    const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return { key: bearer?.[1] ?? '', source: 'Authorization: Bearer' };
  }
  const header = request.headers.get(API_KEY_HEADER);
  if (header !== null) return { key: header, source: API_KEY_HEADER };
  const query = readParam(new URL(request.url).searchParams, API_KEY_PARAMETER);
  if (query !== null) return { key: query, source: API_KEY_PARAMETER };
  return null;
}

/** Decides whether a presented key is one of the configured ones, and which. */
export interface KeyVerifier {
  /** True when `presented` is a configured key; null (header absent) is never accepted. */
  verify(presented: string | null): boolean;
  /**
   * The position (0-based) of `presented` among the configured keys, null when it is none of
   * them: a name for the key that is not the key (rate limits count by it).
   */
  identify(presented: string | null): number | null;
}

/** Bytes a key is compared in: its length in bytes (2), then its bytes, zero-padded. */
const WIDTH = 2 + API_KEY_MAX_LENGTH;
/** The length written for a presented key longer than any configured one can be. */
const TOO_LONG = 0xffff;

/**
 * `key` written over `into` ({@link WIDTH} bytes): its UTF-8 length, then its bytes (those past
 * the longest key cut: its length, {@link TOO_LONG}, is then no configured key's), then zeros.
 * One equal buffer is one equal key: keys are printable ASCII (their bytes are their characters),
 * a presented string with anything else writes a byte of 0x80 or more, which no key has, and the
 * length says where the zeros start. It replaced a SHA-256 of each side: a `Hash` object per
 * request, and its native state, which the collector finalizes.
 */
function written(key: string, into: Buffer): Buffer {
  const length = Buffer.byteLength(key, 'utf8');
  into.fill(0);
  into.writeUInt16BE(length > API_KEY_MAX_LENGTH ? TOO_LONG : length, 0);
  into.write(key, 2, API_KEY_MAX_LENGTH, 'utf8');
  return into;
}

/** What a configured key is made of (src/config.ts refuses anything else). */
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** Where each presented key is written (compared at once, never across an await). */
const PRESENTED = Buffer.alloc(WIDTH);

/**
 * A verifier for `keys` (at least one).
 *
 * @example
 * ```ts
 * const verifier = createKeyVerifier(['0123456789abcdef0123', 'fedcba9876543210fedc']);
 * verifier.verify('0123456789abcdef0123'); // true
 * verifier.identify('fedcba9876543210fedc'); // 1
 * verifier.verify('wrong'); // false
 * ```
 */
export function createKeyVerifier(keys: readonly string[]): KeyVerifier {
  if (keys.length === 0) throw new RangeError('createKeyVerifier needs at least one key: got 0');
  const configured = keys.map((key, position) => {
    if (key.length > API_KEY_MAX_LENGTH || !PRINTABLE_ASCII.test(key)) {
      throw new RangeError(
        `API key #${position + 1} is not one keys can be: printable ASCII, at most ` +
          `${API_KEY_MAX_LENGTH} characters`,
      );
    }
    return written(key, Buffer.alloc(WIDTH));
  });
  const identify = (presented: string | null): number | null => {
    if (presented === null) return null;
    const given = written(presented, PRESENTED);
    let matched: number | null = null;
    // Every configured key is compared, so the time taken does not tell which one matched.
    for (const [position, expected] of configured.entries()) {
      if (timingSafeEqual(given, expected)) matched = position;
    }
    return matched;
  };
  return { identify, verify: (presented) => identify(presented) !== null };
}

/**
 * Middleware naming the caller for everything after it (`c.var.caller`): the position of the
 * configured key it presents, or null when it presents none that is configured. Refuses
 * nothing: {@link requireApiKey} does, after the rate limit has counted the request.
 *
 * @example
 * ```ts
 * app.use(identifyCaller(createKeyVerifier(keys)));
 * ```
 */
export function identifyCaller(verifier: KeyVerifier): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const presented = presentedKey(c.req.raw);
    c.set('caller', verifier.identify(presented?.key ?? null));
    await next();
  };
}

/**
 * Middleware answering 401 `unauthorized` unless {@link identifyCaller} found a valid key. Runs
 * before routing, so an unauthenticated caller gets 401 on every path (known or not) except the
 * public ones and CORS preflights.
 *
 * @example
 * ```ts
 * app.use(identifyCaller(createKeyVerifier(keys)));
 * app.use(requireApiKey(new Set(['/healthz'])));
 * ```
 */
export function requireApiKey(publicPaths: ReadonlySet<string>): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (publicPaths.has(c.req.path)) return await next();
    // Anything but a key's position is refused, a caller left unnamed included.
    if (typeof c.get('caller') !== 'number') {
      const presented = presentedKey(c.req.raw);
      c.set('endpoint', 'unauthorized');
      throw new HttpError(
        'unauthorized',
        presented === null
          ? `no API key: send one of the configured keys as Authorization: Bearer <key>, ` +
            `in the ${API_KEY_HEADER} header, or as the ${API_KEY_PARAMETER} query parameter`
          : `the ${presented.source} key is not one of the configured API keys: send one the ` +
            `service was started with (API_KEYS or API_KEYS_FILE)`,
        { 'WWW-Authenticate': `Bearer, ApiKey header="${API_KEY_HEADER}"` },
      );
    }
    await next();
  };
}
