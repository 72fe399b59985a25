/**
 * API-key authentication: the `X-API-KEY` header (any letter case: HTTP header names are
 * case-insensitive) must hold one of the configured keys. Compared in constant time: both
 * sides are hashed to SHA-256 first, so the comparison never depends on where the strings
 * differ nor on their lengths. Keys never reach a log line or an error message.
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiEnv } from '../context.ts';
import { HttpError } from '../errors.ts';

/** The header that carries the key. */
export const API_KEY_HEADER = 'X-API-KEY';

/** Decides whether a presented key is one of the configured ones. */
export interface KeyVerifier {
  /** True when `presented` is a configured key; null (header absent) is never accepted. */
  verify(presented: string | null): boolean;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * A verifier for `keys` (at least one).
 *
 * @example
 * ```ts
 * const verifier = createKeyVerifier(['0123456789abcdef0123']);
 * verifier.verify('0123456789abcdef0123'); // true
 * verifier.verify('wrong'); // false
 * ```
 */
export function createKeyVerifier(keys: readonly string[]): KeyVerifier {
  if (keys.length === 0) throw new RangeError('createKeyVerifier needs at least one key: got 0');
  const digests = keys.map(digest);
  return {
    verify(presented) {
      if (presented === null) return false;
      const given = digest(presented);
      let matched = false;
      // Every configured key is compared, so the time taken does not tell which one matched.
      for (const expected of digests) matched = timingSafeEqual(given, expected) || matched;
      return matched;
    },
  };
}

/**
 * Middleware answering 401 `unauthorized` unless the request carries a valid key. Runs before
 * routing, so an unauthenticated caller gets 401 on every path (known or not) except the
 * public ones and CORS preflights.
 *
 * @example
 * ```ts
 * app.use(requireApiKey(createKeyVerifier(keys), new Set(['/healthz'])));
 * ```
 */
export function requireApiKey(
  verifier: KeyVerifier,
  publicPaths: ReadonlySet<string>,
): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (publicPaths.has(c.req.path)) return await next();
    const presented = c.req.header(API_KEY_HEADER) ?? null;
    if (!verifier.verify(presented)) {
      c.set('endpoint', 'unauthorized');
      throw new HttpError(
        'unauthorized',
        presented === null
          ? `missing ${API_KEY_HEADER} header: send one of the configured API keys`
          : `the ${API_KEY_HEADER} header does not hold a configured API key`,
        { 'WWW-Authenticate': `ApiKey header="${API_KEY_HEADER}"` },
      );
    }
    await next();
  };
}
