/**
 * CORS: any origin may call the API (`Access-Control-Allow-Origin: *`; the key travels in a
 * header, never in a cookie, so no credentials mode is needed). A preflight (`OPTIONS`) is
 * answered 204 before authentication, as browsers send it without the key.
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { API_KEY_HEADER } from './auth.ts';
import type { ApiEnv } from './env.ts';

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 86_400;

/**
 * The CORS middleware.
 *
 * @example
 * ```ts
 * app.use(cors());
 * ```
 */
export function cors(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      c.set('endpoint', 'preflight');
      return new Response(null, {
        status: 204,
        headers: {
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
          'Access-Control-Allow-Headers': `${API_KEY_HEADER}, Content-Type, If-None-Match`,
          'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE),
        },
      });
    }
    await next();
    c.res.headers.set('Access-Control-Allow-Origin', '*');
    c.res.headers.set('Access-Control-Expose-Headers', 'ETag, Retry-After, WWW-Authenticate');
  };
}
