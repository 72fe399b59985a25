/**
 * When a partition's next flush goes out (`FLUSH_LINGER_MS`): no sooner than the linger after the
 * previous one took its work, unless it is urgent (the partition is full, the consumer stops, a
 * drain), gathering meanwhile what is folded. At a live rate, flushes of a few events each would
 * cost the store a commit per project for every few events. Kept apart from what a flush does
 * (`partition-processor.ts`).
 *
 * @example
 * ```ts
 * const pacer = new FlushPacer(200, nowUs);
 * const taken = pacer.schedule(pacer.waitMs(false, false), () => takePending());
 * pacer.hurry(); // a flush lingering now goes at once, and so does the next one
 * ```
 *
 * @module
 */
import { Linger } from '../src/async/linger.ts';

/** The linger of one partition's flushes. */
export class FlushPacer {
  readonly #lingerMs: number;
  readonly #nowUs: () => number;
  readonly #linger = new Linger();
  /** When the last flush took its work (Unix µs). */
  #lastTakenUs = Number.NEGATIVE_INFINITY;
  /** A flush's linger under way: resolves once that flush has taken its work. */
  #lingering: Promise<void> | null = null;
  /** Set when the next flush must not linger (asked for while a write was under way). */
  #urgent = false;

  constructor(lingerMs: number, nowUs: () => number) {
    this.#lingerMs = lingerMs;
    this.#nowUs = nowUs;
  }

  /** Whether the next flush was asked to go at once. */
  get urgent(): boolean {
    return this.#urgent;
  }

  /** A linger under way, until its flush has taken its work; null when none is. */
  get lingering(): Promise<void> | null {
    return this.#lingering;
  }

  /**
   * How long a flush started now waits: what is left of the linger; none when `full` or
   * `urgent`; never more than the linger (a clock set back does not hold a partition).
   */
  waitMs(full: boolean, urgent: boolean): number {
    if (urgent || full || this.#lingerMs <= 0) return 0;
    const elapsedMs = (this.#nowUs() - this.#lastTakenUs) / 1000;
    return Math.min(this.#lingerMs, this.#lingerMs - elapsedMs);
  }

  /** `take`'s answer after `waitMs` (at once, synchronously, when it is not positive). */
  schedule<T>(waitMs: number, take: () => T): Promise<T> {
    if (!(waitMs > 0)) return Promise.resolve(take());
    const taken = this.#linger.wait(waitMs).then(() => {
      this.#lingering = null;
      return take();
    });
    this.#lingering = taken.then(() => undefined, () => undefined);
    return taken;
  }

  /** Records that a flush took its work now. Reads the clock, which may throw. */
  took(): void {
    this.#lastTakenUs = this.#nowUs();
    this.#urgent = false;
  }

  /** Ends a linger under way now, and has the next flush go at once. */
  hurry(): void {
    this.#urgent = true;
    this.#linger.cut();
  }

  /** Ends a linger under way now. */
  cut(): void {
    this.#linger.cut();
  }
}
