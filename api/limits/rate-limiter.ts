/**
 * The API's rate limits: a token bucket per API key and one per client address (for requests
 * without a valid key), each request taking one token, and per key a share of costly pattern
 * matching time that the match gate charges. Keys are known by their position among the
 * configured keys, never by their text; addresses are kept in a bounded map. Every refusal is
 * a 429 `rate_limited` with `Retry-After`, counted in the metrics by scope and limit.
 *
 * Buckets live in this process: behind a load balancer, each replica limits on its own (a
 * client spread over N replicas may send up to N times the rate).
 *
 * @module
 */
import type { RateLimitConfig } from '../../src/config.ts';
import { type HttpError, rateLimited } from '../errors.ts';
import type { MatchShare } from '../answer/match-gate.ts';
import type { ApiMetrics } from '../metrics.ts';
import { addressPrefix } from '../address-prefix.ts';
import { ClientBuckets } from './client-buckets.ts';

/** Longest address text a bucket is kept under: a header value may be anything. */
const MAX_ADDRESS_LENGTH = 100;

/** Options of {@link RateLimiter}. */
export interface RateLimiterOptions {
  readonly limits: RateLimitConfig;
  /** How many API keys are configured (positions 0 to keys - 1). */
  readonly keys: number;
  /** Most matching time a key's share holds, in ms: one pattern's matching budget. */
  readonly matchBurstMs: number;
  /** The clock of the buckets, in ms. */
  readonly nowMs: () => number;
  readonly metrics: Pick<ApiMetrics, 'countRateLimited' | 'countRateLimitEviction'>;
}

/**
 * The buckets of the API's callers.
 *
 * @example
 * ```ts
 * const limiter = new RateLimiter({ limits, keys: 1, matchBurstMs: 1_000, nowMs, metrics });
 * const refusal = limiter.takeKey(0);
 * if (refusal !== null) throw refusal;
 * ```
 */
export class RateLimiter {
  readonly #nowMs: () => number;
  readonly #metrics: RateLimiterOptions['metrics'];
  readonly #keys: ClientBuckets;
  readonly #addresses: ClientBuckets;
  readonly #matching: ClientBuckets;
  readonly #shares = new Map<number, MatchShare>();

  constructor(options: RateLimiterOptions) {
    const { limits, metrics } = options;
    const rate = { perSecond: limits.perSecond, burst: limits.burst };
    this.#nowMs = options.nowMs;
    this.#metrics = metrics;
    // One bucket per configured key: never more, so none is ever pushed out.
    this.#keys = new ClientBuckets({ rate, maxClients: options.keys });
    this.#addresses = new ClientBuckets({
      rate,
      maxClients: limits.maxAddresses,
      onEvicted: () => metrics.countRateLimitEviction(),
    });
    this.#matching = new ClientBuckets({
      rate: { perSecond: limits.matchMsPerSecond, burst: options.matchBurstMs },
      maxClients: options.keys,
    });
  }

  /** Takes a request from the bucket of the key at `position`; the 429 when it is empty. */
  takeKey(position: number): HttpError | null {
    const nowMs = this.#nowMs();
    const waitMs = this.#keys.get(String(position), nowMs).take(1, nowMs);
    if (waitMs === 0) return null;
    this.#metrics.countRateLimited('key', 'requests');
    return rateLimited('this API key has sent more requests than its rate limit allows', waitMs);
  }

  /**
   * Takes a request from the bucket of `address` (an IPv6 address: of its /64); the 429 when it
   * is empty.
   */
  takeAddress(address: string): HttpError | null {
    const nowMs = this.#nowMs();
    const name = addressPrefix(address.slice(0, MAX_ADDRESS_LENGTH));
    const bucket = this.#addresses.get(name, nowMs);
    const waitMs = bucket.take(1, nowMs);
    if (waitMs === 0) return null;
    this.#metrics.countRateLimited('address', 'requests');
    return rateLimited(
      'this address has sent more requests without a valid API key than the rate limit allows',
      waitMs,
    );
  }

  /** The share of costly pattern matching of the key at `position`. */
  matchShare(position: number): MatchShare {
    const known = this.#shares.get(position);
    if (known !== undefined) return known;
    const bucket = () => this.#matching.get(String(position), this.#nowMs());
    const share: MatchShare = {
      spend: (ms) => bucket().spend(ms, this.#nowMs()),
      left: () => bucket().tokens(this.#nowMs()),
      rested: () => bucket().isFull(this.#nowMs()),
      refusal: () => {
        const waitMs = bucket().debtMs(this.#nowMs());
        if (waitMs === 0) return null;
        this.#metrics.countRateLimited('key', 'matching');
        return rateLimited(
          "this API key's costly project patterns have used its share of matching time; a " +
            'plain project ref (matched by substring search) is not charged',
          waitMs,
        );
      },
    };
    this.#shares.set(position, share);
    return share;
  }
}
