/**
 * How many requests the process handles at once. A request past `maxHandling` waits its turn, in
 * arrival order, before the API reads it (its connection is already open; nothing of the app has
 * run for it yet). A place is given back when the request's handling ends (its answer handed to
 * the connection: a live stream's first event; on Node, an answer over 64 KiB once written) or
 * once it has held the place for `holdMs`, whichever comes first: a slow request (a body sent
 * slowly, a SQL query, a slow store) runs on but stops counting, so it never holds up the others
 * for longer than `holdMs`.
 *
 * Why: thousands of requests arriving in one instant (dashboards reconnecting after a deploy,
 * 5,000 live streams opened together) were otherwise all in flight together. What each one
 * allocated lived until the last of them was answered, outlived the young generation, and left
 * the heap 50 to 80 MiB larger for good. Handled 64 at a time, it dies young (BENCHMARKS.md).
 *
 * Requests of one connection (its `line`: HTTP/1.1 pipelining sends several before the first is
 * answered) take turns among themselves: only one of them at a time waits with the others or is
 * handled, so a client that pipelines a thousand requests holds one place in the queue, not a
 * thousand. A waiting request whose client has gone is passed over (told through `passOver`).
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

/** A request waiting for its turn. */
export interface WaitingRequest {
  /** Handles it; the promise settles when its handling ends. */
  readonly handle: () => Promise<unknown>;
  /** Whether its client has left meanwhile: it is then passed over, never handled. */
  readonly gone: () => boolean;
  /** Told when it is passed over. */
  readonly passOver?: () => void;
  /** Its connection: requests of one line take turns among themselves (see the module). */
  readonly line?: object;
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
  /** Of each line with a request waiting or handled, the requests queued behind it. */
  readonly #lines = new WeakMap<object, WaitingRequest[]>();
  /** Requests queued behind another of their line. */
  #behind = 0;
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

  /** Most requests handled at once. */
  get maxHandling(): number {
    return this.#maxHandling;
  }

  /** Longest time a request counts against `maxHandling`, in ms. */
  get holdMs(): number {
    return this.#holdMs;
  }

  /** Requests waiting for their turn now (those queued behind another of their line too). */
  get waiting(): number {
    return this.#queued() + this.#behind;
  }

  /** Requests handled since the start. */
  get admitted(): number {
    return this.#admitted;
  }

  /** Requests that held their place for `holdMs` (and stopped counting then, if still running). */
  get heldTooLong(): number {
    return this.#released;
  }

  /**
   * Handles `request` now if a place is free, else once one is (in arrival order); behind the
   * request of its line waiting or handled, once that one's handling has ended.
   */
  admit(request: WaitingRequest): void {
    if (request.line !== undefined) {
      const behind = this.#lines.get(request.line);
      if (behind !== undefined) {
        behind.push(request);
        this.#behind += 1;
        return;
      }
      this.#lines.set(request.line, []);
    }
    this.#enter(request);
  }

  #queued(): number {
    return this.#waiting.length - this.#head;
  }

  #enter(request: WaitingRequest): void {
    this.#freeHeldTooLong(this.#nowMs());
    this.#next();
    if (this.#held < this.#maxHandling && this.#queued() === 0) {
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
    const done = () => {
      this.#giveBack(place);
      this.#lineDone(request);
    };
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
      if (this.#nowMs() - place.startedMs >= this.#holdMs) this.#released += 1;
    }
    this.#dropReleased();
    this.#next();
  }

  /** The request of a line has been handled or passed over: the next of its line enters. */
  #lineDone(request: WaitingRequest): void {
    if (request.line === undefined) return;
    const behind = this.#lines.get(request.line);
    const next = behind?.shift();
    if (next === undefined) {
      this.#lines.delete(request.line);
      return;
    }
    this.#behind -= 1;
    this.#enter(next);
  }

  #passOver(request: WaitingRequest): void {
    request.passOver?.();
    this.#lineDone(request);
  }

  /** Starts waiting requests while places are free, passing over those whose client has gone. */
  #next(): void {
    while (this.#held < this.#maxHandling && this.#head < this.#waiting.length) {
      const request = this.#waiting[this.#head] as WaitingRequest;
      this.#waiting[this.#head++] = PASSED;
      if (request.gone()) this.#passOver(request);
      else this.#start(request);
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
    if (this.#checkScheduled || this.#queued() === 0) return;
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
    help: `Requests waiting for their turn (at most ${turns.maxHandling} are handled at once).`,
    registers: [registry],
    collect() {
      this.set(turns.waiting);
    },
  });
  let counted = 0;
  new Counter({
    name: 'api_http_requests_held_too_long_total',
    help:
      `Requests that held one of the ${turns.maxHandling} places for ${turns.holdMs} ms or more ` +
      '(they stop counting then).',
    registers: [registry],
    collect() {
      this.inc(turns.heldTooLong - counted);
      counted = turns.heldTooLong;
    },
  });
}
