/**
 * A store that answers reads with the replies another store gave the same calls: record them
 * once, then replay them without a round trip, so a benchmark measures an answer's computation
 * alone (no client, no socket, no Redis).
 *
 * @example
 * ```ts
 * const replay = new ReplayStore(redisStore);
 * await answer(replay.store); // recorded
 * replay.replaying();
 * await answer(replay.store); // the same replies, from memory
 * ```
 *
 * @module
 */
import type { RollupStore } from '../../src/store/port.ts';

/** One call made through the store while recording. */
interface RecordedCall {
  readonly method: string;
  readonly args: readonly unknown[];
}

/** Records the replies of a store's calls, then replays them. */
export class ReplayStore {
  readonly #replies = new Map<string, unknown>();
  readonly #calls: RecordedCall[] = [];
  readonly #recorded: RollupStore;
  #recording = true;
  /** The store to read through: `recorded` until {@link replaying}, then the replies kept. */
  readonly store: RollupStore;

  constructor(recorded: RollupStore) {
    this.#recorded = recorded;
    const replies = this.#replies;
    const calls = this.#calls;
    const isRecording = () => this.#recording;
    this.store = new Proxy(recorded, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const call = `${String(property)} ${JSON.stringify(args)}`;
          if (isRecording()) {
            calls.push({ method: String(property), args: structuredClone(args) });
            return Promise.resolve(value.apply(target, args)).then((reply: unknown) => {
              replies.set(call, reply);
              return reply;
            });
          }
          if (!replies.has(call)) {
            throw new Error(`no reply recorded for ${call.slice(0, 200)}: record every call first`);
          }
          return Promise.resolve(replies.get(call));
        };
      },
    });
  }

  /**
   * Makes every call recorded so far again, in the order it was first made, each awaited before
   * the next, on the recorded store itself (its replies dropped, nothing recorded): what those
   * answers cost the store and its client, with nothing computed from the replies.
   */
  async callAgain(): Promise<void> {
    // A copy: calls made meanwhile through `store` are recorded, not made again.
    for (const { method, args } of [...this.#calls]) {
      const call: unknown = Reflect.get(this.#recorded, method, this.#recorded);
      if (typeof call !== 'function') throw new Error(`the recorded store has no ${method}`);
      await call.apply(this.#recorded, args);
    }
  }

  /** Calls recorded so far. */
  get recordedCalls(): number {
    return this.#calls.length;
  }

  /** From now on, every call is answered with its recorded reply. */
  replaying(): void {
    this.#recording = false;
  }
}
