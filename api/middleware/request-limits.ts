/**
 * Bounds on the request line: a URL longer than {@link MAX_URL_LENGTH} is answered 414
 * `uri_too_long` before anything parses it. (Node's HTTP server bounds the request head
 * itself; see `adapters/node.ts`.)
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../context.ts';
import { HttpError } from '../errors.ts';

/** Longest accepted URL (scheme, host, path and query), in characters. */
export const MAX_URL_LENGTH = 8_192;

/**
 * The URL-length middleware.
 *
 * @example
 * ```ts
 * app.use(limitUrlLength());
 * ```
 */
export function limitUrlLength(maxLength = MAX_URL_LENGTH): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.req.url.length > maxLength) {
      c.set('endpoint', 'uri_too_long');
      throw new HttpError(
        'uri_too_long',
        `the URL has ${c.req.url.length} characters, more than the limit of ${maxLength}: ` +
          'shorten the query string',
      );
    }
    await next();
  };
}
