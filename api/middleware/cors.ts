/**
 * CORS, with Hono's own middleware: any origin may call the API (`Access-Control-Allow-Origin:
 * *`; the key travels in a header, never in a cookie, so no credentials mode is needed). A
 * preflight (`OPTIONS`) is answered 204 before authentication, as browsers send it without the
 * key, and is counted in the metrics as `preflight`.
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { cors as honoCors } from 'hono/cors';
import type { ApiEnv } from '../context.ts';
import { IGNORED_PARAMETERS_HEADER, REDACT_PII_HEADER } from '../answer/query-params.ts';
import { API_KEY_HEADER } from './auth.ts';
import { TRUNCATED_HEADER } from '../answer/answer.ts';

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
  const handle = honoCors({
    origin: '*',
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: [
      'Authorization',
      API_KEY_HEADER,
      'Content-Type',
      'If-None-Match',
      'LF-ENDPOINT-LABELS',
      REDACT_PII_HEADER,
    ],
    exposeHeaders: [
      'ETag',
      'Retry-After',
      'WWW-Authenticate',
      IGNORED_PARAMETERS_HEADER,
      TRUNCATED_HEADER,
    ],
    maxAge: PREFLIGHT_MAX_AGE,
  });
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      c.set('endpoint', 'preflight');
      return await handle(c, next);
    }
    // Other requests get their headers once answered. Set before, they would make Hono wrap
    // the handler's response in a new one (merging headers into it), which costs the Node
    // adapter its fast path: the body then goes through a web stream and is copied (about 10%
    // of an API process's CPU under load, `npm run bench:api -- --profile`).
    await next();
    await handle(c, () => Promise.resolve());
  };
}
