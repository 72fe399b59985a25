/**
 * CORS, with Hono's own middleware: any origin may call the API (`Access-Control-Allow-Origin:
 * *`; the key travels in a header, never in a cookie, so no credentials mode is needed). A
 * preflight (`OPTIONS`) is answered 204 before authentication, as browsers send it without the
 * key, and is counted in the metrics as `preflight`.
 *
 * A route's response that carries the answers' CORS headers in its own headers
 * ({@link carryingCors}) is left as it is: setting them afterwards turns its headers into a
 * `Headers` object, which the Node adapter then converts back, about 10 µs of an API process's
 * CPU per answer reused.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from 'hono';
import { cors as honoCors } from 'hono/cors';
import type { ApiEnv } from '../context.ts';
import { IGNORED_PARAMETERS_HEADER, REDACT_PII_HEADER } from '../answer/query-params.ts';
import { API_KEY_HEADER } from './auth.ts';
import { TRUNCATED_HEADER } from '../answer/answer.ts';

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 86_400;

/** The response headers a browser lets a caller's script read. */
const EXPOSED_HEADERS = [
  'ETag',
  'Retry-After',
  'WWW-Authenticate',
  IGNORED_PARAMETERS_HEADER,
  TRUNCATED_HEADER,
];

/** The CORS headers of every answer but a preflight's, as Hono's middleware writes them. */
export const ANSWER_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(','),
});

/**
 * `response`, marked as carrying {@link ANSWER_CORS_HEADERS} in its own headers: the middleware
 * leaves it as it is. Any other response the request ends with gets them from the middleware.
 *
 * @example
 * ```ts
 * return carryingCors(c, new Response(body, { headers: { ...ANSWER_CORS_HEADERS, ...headers } }));
 * ```
 */
export function carryingCors(c: Context<ApiEnv>, response: Response): Response {
  c.set('corsCarriedBy', response);
  return response;
}

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
    exposeHeaders: EXPOSED_HEADERS,
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
    if (c.get('corsCarriedBy') === c.res) return;
    await handle(c, () => Promise.resolve());
  };
}
