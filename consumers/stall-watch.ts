/**
 * Partitions that have not advanced while their lag grew: a consumer stuck without an error
 * (a fetch that never returns, a partition paused and forgotten) looks idle, and only the
 * stored offset standing still while events pile up behind it tells it from a quiet partition.
 *
 * @example
 * ```ts
 * const watch = new StallWatch(() => Date.now());
 * watch.observe([{ stream: 'logs.edge/0', stored: 10, events: 5 }]);
 * watch.stalled(); // [] until the same stored offset is seen a minute later with more lag
 * ```
 *
 * @module
 */

/** How long a stored offset must stand still, with its lag growing, to be a stall. */
export const STALL_MS = 60_000;

/** One partition's stored offset and lag, as sampled. */
export interface LagSample {
  readonly stream: string;
  /** The stored offset (where consuming resumes). */
  readonly stored: number;
  /** Events between the stored offset and the partition's end. */
  readonly events: number;
}

/** Tracks, per partition, since when its stored offset stands where it is. */
export class StallWatch {
  readonly #nowMs: () => number;
  /** Per stream: the stored offset, when it was first seen there, with what lag; the lag now. */
  #since = new Map<string, { stored: number; atMs: number; events: number; now: number }>();

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  /** Takes the latest samples of the partitions this process holds (others are forgotten). */
  observe(samples: readonly LagSample[]): void {
    const since = new Map<string, { stored: number; atMs: number; events: number; now: number }>();
    for (const { stream, stored, events } of samples) {
      const seen = this.#since.get(stream);
      since.set(
        stream,
        seen !== undefined && seen.stored === stored
          ? { ...seen, now: events }
          : { stored, atMs: this.#nowMs(), events, now: events },
      );
    }
    this.#since = since;
  }

  /** Partitions whose stored offset stood still for {@link STALL_MS} while their lag grew. */
  stalled(): string[] {
    const nowMs = this.#nowMs();
    return [...this.#since].filter(([, seen]) =>
      nowMs - seen.atMs >= STALL_MS && seen.now > seen.events
    ).map(([stream, seen]) =>
      `${stream} has not advanced from offset ${seen.stored} in ${
        Math.round((nowMs - seen.atMs) / 1000)
      } s while its lag grew from ${seen.events} to ${seen.now} events`
    );
  }
}
