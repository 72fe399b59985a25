/**
 * The caps on open live streams: of the process, of each API key, of each client address (IPv6:
 * its /64). A stream takes one place of each when it opens and gives them back when it closes.
 *
 * @module
 */
import { type HttpError, rateLimited } from '../errors.ts';

/** The caps; 0 per address: none. */
export interface StreamCapLimits {
  readonly total: number;
  readonly perKey: number;
  readonly perAddress: number;
}

/** How long a refused client is asked to wait: a stream rarely closes sooner. */
const RETRY_AFTER_MS = 5_000;

/** The places taken by the open streams. */
export class StreamCaps {
  readonly #limits: StreamCapLimits;
  readonly #byKey = new Map<number, number>();
  readonly #byAddress = new Map<string, number>();
  #open = 0;

  constructor(limits: StreamCapLimits) {
    this.#limits = limits;
  }

  /** Open streams now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Takes a place for a stream of `key` (the key's position) from `address` (null: unknown, not
   * capped), or answers the 429 of the first cap it would pass; the release gives it back, once.
   */
  take(key: number, address: string | null): { release: () => void } | HttpError {
    const { total, perKey, perAddress } = this.#limits;
    if (this.#open >= total) {
      return rateLimited(
        `this API process has ${total} live streams open (LIVE_MAX_STREAMS)`,
        RETRY_AFTER_MS,
      );
    }
    if ((this.#byKey.get(key) ?? 0) >= perKey) {
      return rateLimited(
        `this API key has ${perKey} live streams open (LIVE_MAX_STREAMS_PER_KEY)`,
        RETRY_AFTER_MS,
      );
    }
    const capped = perAddress > 0 && address !== null;
    if (capped && (this.#byAddress.get(address) ?? 0) >= perAddress) {
      return rateLimited(
        `this client address has ${perAddress} live streams open (LIVE_MAX_STREAMS_PER_ADDRESS)`,
        RETRY_AFTER_MS,
      );
    }
    this.#open += 1;
    add(this.#byKey, key, 1);
    if (capped) add(this.#byAddress, address, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#open -= 1;
        add(this.#byKey, key, -1);
        if (capped) add(this.#byAddress, address, -1);
      },
    };
  }
}

function add<K>(counts: Map<K, number>, key: K, by: number): void {
  const count = (counts.get(key) ?? 0) + by;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}
