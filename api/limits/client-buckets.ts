/**
 * The buckets of many clients, at most `maxClients` of them: a client seen for the first time
 * when the map is full pushes out the one seen least recently. So a caller rotating addresses
 * cannot grow the map without bound; what it gains is a fresh bucket per new address, which it
 * had anyway.
 *
 * @module
 */
import { type BucketRate, checkBucketRate, TokenBucket } from './token-bucket.ts';

/** Options of {@link ClientBuckets}. */
export interface ClientBucketsOptions {
  readonly rate: BucketRate;
  /** Most buckets kept: a positive integer. */
  readonly maxClients: number;
  /** Told each time a bucket is pushed out to make room. */
  readonly onEvicted?: () => void;
}

/**
 * Buckets by client name, least recently used first out.
 *
 * @example
 * ```ts
 * const buckets = new ClientBuckets({ rate: { perSecond: 10, burst: 20 }, maxClients: 10_000 });
 * buckets.get('address 198.51.100.7', nowMs).take(1, nowMs);
 * ```
 */
export class ClientBuckets {
  readonly #rate: BucketRate;
  readonly #maxClients: number;
  readonly #onEvicted: () => void;
  /** In the order of their last use, least recent first. */
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(options: ClientBucketsOptions) {
    const { maxClients } = options;
    if (!Number.isInteger(maxClients) || maxClients < 1) {
      throw new RangeError(
        `'maxClients' must be a positive integer: current value is ${maxClients}`,
      );
    }
    this.#rate = options.rate;
    this.#maxClients = maxClients;
    this.#onEvicted = options.onEvicted ?? (() => {});
    // Checked here, once, rather than on a client's first request.
    checkBucketRate(options.rate);
  }

  /** How many buckets are kept. */
  get size(): number {
    return this.#buckets.size;
  }

  /** The bucket of `client`, a full one if it has none (pushing out the least recent if full). */
  get(client: string, nowMs: number): TokenBucket {
    const known = this.#buckets.get(client);
    if (known !== undefined) {
      this.#buckets.delete(client);
      this.#buckets.set(client, known);
      return known;
    }
    if (this.#buckets.size >= this.#maxClients) {
      const oldest = this.#buckets.keys().next();
      if (oldest.done !== true) {
        this.#buckets.delete(oldest.value);
        this.#onEvicted();
      }
    }
    const bucket = new TokenBucket(this.#rate, nowMs);
    this.#buckets.set(client, bucket);
    return bucket;
  }
}
