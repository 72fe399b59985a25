/**
 * The memory budget of the embedded store: what it holds is estimated in bytes as it changes, and
 * an ingest asks for room before it folds a body. A store past its budget refuses new data rather
 * than forgetting any it holds: nothing already accepted is lost, and room comes back as data
 * expires.
 *
 * @module
 */

/** A store that can say whether more data fits within its budget. */
export interface MemoryBudget {
  /**
   * Resolves quietly when `incomingBytes` more (an estimate) fit within the budget; throws
   * {@link StoreFullError} when they do not.
   */
  ensureRoom(incomingBytes: number): void;
}

/** The embedded store cannot take more data without going past its memory budget. */
export class StoreFullError extends Error {
  readonly heldBytes: number;
  readonly maxBytes: number;

  constructor(heldBytes: number, maxBytes: number, incomingBytes: number) {
    super(
      `the embedded store holds an estimated ${heldBytes} bytes of its budget of ${maxBytes} ` +
        `bytes (MEMORY_STORE_MAX_BYTES), with no room for the ${incomingBytes} bytes of this ` +
        'body: none of its events were stored, and nothing stored before was dropped. Send them ' +
        'again once older data has expired, or ask the operator to raise MEMORY_STORE_MAX_BYTES ' +
        'or to run the service on Redis (REDIS_URL)',
    );
    this.name = 'StoreFullError';
    this.heldBytes = heldBytes;
    this.maxBytes = maxBytes;
  }
}
