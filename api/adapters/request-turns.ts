/**
 * How many requests the process handles at once. A request past `maxHandling` waits its turn, in
 * arrival order, before the API reads it (its connection is already open; nothing of the app has
 * run for it yet). A place is given back when the request's handling ends (its answer started:
 * a live stream counts until its first event is written) or once it has held the place for
 * `holdMs`, whichever comes first: a slow request (a body sent slowly, a SQL query, a slow store)
 * keeps running but stops counting, so it never holds up the others for longer than `holdMs`.
 *
 * Why: thousands of requests arriving in one instant (dashboards reconnecting after a deploy,
 * 5,000 live streams opened together) were otherwise all in flight together. What each one
 * allocated lived until the last of them was answered, outlived the young generation, and left
 * the heap 50 to 80 MiB larger for good. Handled 64 at a time, it dies young (BENCHMARKS.md).
 *
 * A waiting request whose client has gone is passed over. The waiting are bounded by the
 * connection cap (one request at a time per connection).
 *
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** Most requests handled at once (see the module's comment). */
export const MAX_HANDLING = 64;

/** Longest time a request counts against {@link MAX_HANDLING}, in ms. */
export const HOLD_MS = 100;

/** Options of {@link RequestTurns}. */
export interface RequestTurnsOptions {
  /** Most requests handled at once. Default {@link MAX_HANDLING}. */
  readonly maxHandling?: number;
  /** Longest time a request counts against `maxHandling`, in ms. Default {@link HOLD_MS}. */
  readonly holdMs?: number;
  /** The clock, in ms. */
  readonly nowMs: () => number;
  /** Schedules the check that frees the places held past `holdMs` (default `setTimeout`). */
  readonly schedule?: (run: () => void, delayMs: number) => void;
}

/** A request waiting for its turn: `handle` runs it; `gone` says its client left meanwhile. */
export interface WaitingRequest {
  readonly handle: () => Promise<unknown>;
  readonly gone: () => boolean;
}

/** What a started request's slot in the waiting list holds (nothing of the request). */
const PASSED: WaitingRequest = { handle: () => Promise.resolve(), gone: () => true };

interface Place {
  readonly startedMs: number;
  /** Whether it still counts against `maxHandling`. */
  held: boolean;
}

/**
 * Requests take turns, `maxHandling` at a time.
 *
 * @example
 * ```ts
 * const turns = new RequestTurns({ nowMs: Date.now });
 * turns.admit({ handle: () => listener(request, response), gone: () => response.destroyed });
 * ```
 */
export class RequestTurns {
  readonly #maxHandling: number;
  readonly #holdMs: number;
  readonly #nowMs: () => number;
  readonly #schedule: (run: () => void, delayMs: number) => void;
  /** Places taken, oldest first (some already given back, dropped from the front). */
  readonly #places: Place[] = [];
  #held = 0;
  /** Requests waiting, from `#head` on (the front is dropped in steps, not one at a time). */
  #waiting: WaitingRequest[] = [];
  #head = 0;
  #checkScheduled = false;
  #admitted = 0;
  #released = 0;

  constructor(options: RequestTurnsOptions) {
    const maxHandling = options.maxHandling ?? MAX_HANDLING;
    const holdMs = options.holdMs ?? HOLD_MS;
    if (!Number.isInteger(maxHandling) || maxHandling < 1) {
      throw new RangeError(
        `'maxHandling' must be a positive integer: current value is ${maxHandling}`,
      );
    }
    if (!Number.isInteger(holdMs) || holdMs < 1) {
      throw new RangeError(`'holdMs' must be a positive integer: current value is ${holdMs}`);
    }
    this.#maxHandling = maxHandling;
    this.#holdMs = holdMs;
    this.#nowMs = options.nowMs;
    this.#schedule = options.schedule ??
      ((run, delayMs) => setTimeout(run, delayMs).unref?.());
  }

  /** Requests waiting for their turn now. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Requests handled since the start. */
  get admitted(): number {
    return this.#admitted;
  }

  /** Requests that stopped counting because they held their place for `holdMs`. */
  get heldTooLong(): number {
    return this.#released;
  }

  /** Handles `request` now if a place is free, else once one is (in arrival order). */
  admit(request: WaitingRequest): void {
    this.#freeHeldTooLong(this.#nowMs());
    this.#next();
    if (this.#held < this.#maxHandling && this.waiting === 0) {
      this.#start(request);
      return;
    }
    this.#waiting.push(request);
    this.#scheduleCheck();
  }

  #start(request: WaitingRequest): void {
    const place: Place = { startedMs: this.#nowMs(), held: true };
    this.#places.push(place);
    this.#held += 1;
    this.#admitted += 1;
    const done = () => this.#giveBack(place);
    let handling: Promise<unknown>;
    try {
      handling = request.handle();
    } catch {
      done();
      return;
    }
    handling.then(done, done);
  }

  #giveBack(place: Place): void {
    if (place.held) {
      place.held = false;
      this.#held -= 1;
    }
    this.#dropReleased();
    this.#next();
  }

  /** Starts waiting requests while places are free, passing over those whose client has gone. */
  #next(): void {
    while (this.#held < this.#maxHandling && this.#head < this.#waiting.length) {
      const request = this.#waiting[this.#head] as WaitingRequest;
      this.#waiting[this.#head++] = PASSED;
      if (!request.gone()) this.#start(request);
    }
    if (this.#head === this.#waiting.length) {
      this.#waiting = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Gives back the places held for `holdMs` or longer. */
  #freeHeldTooLong(nowMs: number): void {
    for (const place of this.#places) {
      if (nowMs - place.startedMs < this.#holdMs) break;
      if (!place.held) continue;
      place.held = false;
      this.#held -= 1;
      this.#released += 1;
    }
    this.#dropReleased();
  }

  #dropReleased(): void {
    let count = 0;
    while (count < this.#places.length && !(this.#places[count] as Place).held) count += 1;
    if (count > 0) this.#places.splice(0, count);
  }

  /** While requests wait, checks again when the oldest place will have been held `holdMs`. */
  #scheduleCheck(): void {
    if (this.#checkScheduled || this.waiting === 0) return;
    const oldest = this.#places[0];
    if (oldest === undefined) return;
    this.#checkScheduled = true;
    const delayMs = Math.max(1, oldest.startedMs + this.#holdMs - this.#nowMs());
    this.#schedule(() => {
      this.#checkScheduled = false;
      this.#freeHeldTooLong(this.#nowMs());
      this.#next();
      this.#scheduleCheck();
    }, delayMs);
  }
}

/** The metrics of requests' turns, read at each scrape: requests waiting, and those held too long. */
export function requestTurnsMetrics(registry: Registry, turns: RequestTurns): void {
  new Gauge({
    name: 'api_http_requests_waiting',
    help: `Requests waiting for their turn (at most ${MAX_HANDLING} are handled at once).`,
    registers: [registry],
    collect() {
      this.set(turns.waiting);
    },
  });
  let counted = 0;
  new Counter({
    name: 'api_http_requests_held_too_long_total',
    help:
      `Requests that stopped counting against the ${MAX_HANDLING} handled at once after ${HOLD_MS} ms ` +
      'and ran on.',
    registers: [registry],
    collect() {
      this.inc(turns.heldTooLong - counted);
      counted = turns.heldTooLong;
    },
  });
}
