/**
 * Runs asynchronous work one piece at a time, in the order it was handed over: a piece starts
 * once the one before it has settled, whether it resolved or rejected, and its own outcome goes
 * to its caller only.
 *
 * @example
 * ```ts
 * const queue = new SerialQueue();
 * const first = queue.run(() => write(a));
 * const second = queue.run(() => write(b)); // starts once `first` has settled
 * queue.size; // 2 until `first` settles
 * ```
 *
 * @module
 */

/** A queue of work run one piece at a time. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #size = 0;

  /** How many pieces are waiting or running. */
  get size(): number {
    return this.#size;
  }

  /** Runs `work` after everything handed over before it has settled; answers its outcome. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.#size += 1;
    const mine = this.#tail.then(work, work);
    this.#tail = mine.catch(() => undefined);
    try {
      return await mine;
    } finally {
      this.#size -= 1;
    }
  }
}
