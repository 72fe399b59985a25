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

/** Records the replies of a store's calls, then replays them. */
export class ReplayStore {
  readonly #replies = new Map<string, unknown>();
  #recording = true;
  /** The store to read through: `recorded` until {@link replaying}, then the replies kept. */
  readonly store: RollupStore;

  constructor(recorded: RollupStore) {
    const replies = this.#replies;
    const isRecording = () => this.#recording;
    this.store = new Proxy(recorded, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const call = `${String(property)} ${JSON.stringify(args)}`;
          if (isRecording()) {
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

  /** From now on, every call is answered with its recorded reply. */
  replaying(): void {
    this.#recording = false;
  }
}
