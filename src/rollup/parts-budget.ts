/**
 * How many stored parts the writers of one process may keep (in columns) between flushes, all
 * of them together. A writer's own limit bounds one partition; a consumer holds as many
 * partitions as the group gives it, so only a budget shared by its writers bounds the process.
 * Every writer counts the parts it holds into the budget and, after each of its flushes, drops
 * its least recently committed projects' parts while the budget is exceeded (see
 * `PartitionWriter`'s eviction): the process holds at most the budget plus what the flushes under
 * way have just read. A part dropped is read again from the store when next needed.
 *
 * Under memory pressure the budget can be squeezed to nothing for a while
 * ({@link PartsBudget.squeeze}): every writer then drops its parts at its next flush.
 *
 * @example
 * ```ts
 * const budget = new PartsBudget(100_000);
 * budget.add(3); // a writer read three parts
 * budget.exceeded; // false
 * ```
 *
 * @module
 */

/** A count of parts shared by the writers of a process, and its limit. */
export class PartsBudget {
  readonly #limit: number;
  #held = 0;
  #squeezed = false;

  /** A budget of `limit` parts (a positive integer). */
  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`a parts budget must be a positive integer: got ${limit}`);
    }
    this.#limit = limit;
  }

  /** The most parts the writers keep together. */
  get limit(): number {
    return this.#limit;
  }

  /** Parts the writers hold now. */
  get held(): number {
    return this.#held;
  }

  /** Counts `parts` more held (negative: dropped). */
  add(parts: number): void {
    this.#held += parts;
  }

  /** Whether the writers hold more than the limit (or any part, while squeezed). */
  get exceeded(): boolean {
    return this.#held > (this.#squeezed ? 0 : this.#limit);
  }

  /** While `on`, the budget is nothing: every writer drops its parts at its next flush. */
  squeeze(on: boolean): void {
    this.#squeezed = on;
  }
}
