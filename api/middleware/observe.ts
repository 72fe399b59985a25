/**
 * Request metrics: every answer is counted and timed under its endpoint (or route) name and
 * status. Debug logs name the method, path, status and duration; never headers or keys.
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../src/logger.ts';
import type { ApiEnv } from '../context.ts';
import type { ApiMetrics } from '../metrics.ts';

/**
 * The metrics middleware; outermost, so it sees every answer, errors included.
 *
 * @example
 * ```ts
 * app.use(observe(metrics, logger));
 * ```
 */
export function observe(metrics: ApiMetrics, logger: Logger): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const started = performance.now();
    c.set('endpoint', 'not_found');
    await next();
    const seconds = (performance.now() - started) / 1000;
    metrics.observeRequest(c.get('endpoint'), c.res.status, seconds);
    if (logger.isLevelEnabled('debug')) {
      logger.debug(
        { method: c.req.method, path: c.req.path, status: c.res.status, ms: seconds * 1000 },
        'request',
      );
    }
  };
}
