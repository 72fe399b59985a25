/**
 * The rate-limit middleware: after {@link identifyCaller}, a request with a valid key takes a
 * token from its key's bucket (and gets its key's share of costly matching for the routes),
 * any other from its address's bucket; an empty bucket answers 429 `rate_limited` with
 * `Retry-After`, before the key is required. Liveness probes are exempt (the app passes them): a
 * refused health check would have an orchestrator restart a process that is only busy.
 *
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import type { AddressSource } from '../../src/config.ts';
import type { ApiEnv } from '../context.ts';
import type { HttpError } from '../errors.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { clientAddress } from './client-address.ts';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  readonly addressFrom: AddressSource;
  /** Paths never limited. */
  readonly exempt: ReadonlySet<string>;
}

/**
 * The middleware.
 *
 * @example
 * ```ts
 * app.use(identifyCaller(verifier));
 * app.use(rateLimit(limiter, { addressFrom: { kind: 'socket' }, exempt: new Set(['/healthz']) }));
 * app.use(requireApiKey(publicPaths));
 * ```
 */
export function rateLimit(
  limiter: RateLimiter,
  options: RateLimitOptions,
): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (options.exempt.has(c.req.path)) return await next();
    const caller = c.get('caller');
    let refusal: HttpError | null;
    if (caller === null) {
      const address = clientAddress(c.req.raw, c.env.connection, options.addressFrom);
      refusal = address === null ? null : limiter.takeAddress(address);
    } else {
      refusal = limiter.takeKey(caller);
      c.set('matchShare', limiter.matchShare(caller));
    }
    if (refusal !== null) {
      c.set('endpoint', 'rate_limited');
      throw refusal;
    }
    await next();
  };
}
