/**
 * The memory budget of the embedded store: what it holds is estimated in bytes as it changes, and
 * an ingest asks for room before it folds a body. A store at its budget makes room by dropping
 * the oldest ring-buffer entries (`logs.all`) of the project holding the most; it refuses new
 * data only when its rollups leave no room, rather than forgetting any rollup it holds: no
 * count already accepted is lost, and room comes back as data expires.
 *
 * @module
 */

/** A store that can say whether more data fits within its budget. */
export interface MemoryBudget {
  /**
   * Resolves quietly when `incomingBytes` more (an estimate) fit within the budget, after
   * dropping ring-buffer entries if need be; throws {@link StoreFullError} when they do not
   * fit even so. A request of 0 bytes always fits. Answers how many ring-buffer entries it
   * dropped.
   */
  ensureRoom(incomingBytes: number): number;
}

/** The embedded store cannot take more data without going past its memory budget. */
export class StoreFullError extends Error {
  readonly heldBytes: number;
  readonly maxBytes: number;

  constructor(heldBytes: number, maxBytes: number, incomingBytes: number) {
    super(
      `the embedded store holds an estimated ${heldBytes} bytes of its budget of ${maxBytes} ` +
        `bytes (MEMORY_STORE_MAX_BYTES), with no room for the ${incomingBytes} bytes of this ` +
        'body even without the entries of logs.all: none of its events were stored, and ' +
        'nothing stored before was dropped. Send them ' +
        'again once older data has expired, or ask the operator to raise MEMORY_STORE_MAX_BYTES ' +
        'or to run the service on Redis (REDIS_URL)',
    );
    this.name = 'StoreFullError';
    this.heldBytes = heldBytes;
    this.maxBytes = maxBytes;
  }
}
