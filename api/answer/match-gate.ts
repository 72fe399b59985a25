/**
 * One costly pattern matched at a time. Matching gives other work a turn between slices of about
 * 10 ms; with several costly patterns interleaved, every other request waits for one slice of
 * each (measured: 4 at once, `/healthz` median 118 ms, max 326 ms; docs/benchmarks-history.md,
 * "Costly patterns, before and after issue 18"). So a pattern that needs more than one slice takes
 * the gate for the rest of its matching, and the next costly one waits for its turn: other
 * requests then wait for one slice at most. A pattern that would wait longer than `maxWaitMs` is
 * answered 503 `unavailable` with `Retry-After`: the cause is the load, not the pattern.
 *
 * Matching time is charged to the share of the caller that asked ({@link MatchShare}): each
 * slice, the first included, is spent from it. A caller whose share is used up has its pattern
 * refused with the share's 429 (at its next turn, or before it starts), so one key's costly
 * patterns exhaust that key's share, not everyone's turn. The next turn goes to the waiting
 * pattern whose caller has the most share left, and a holder hands the gate over at its next
 * turn to a waiting pattern with more left than its own caller. Only a caller whose share is
 * whole (rested) matches its first slice without the gate; any other waits for the gate before
 * it starts: one slice of a costly pattern (a host test may take 45 ms) run by each of many
 * requests at once would otherwise hold every other answer back. So a key flooding costly
 * patterns drains its own share, then matches one slice at a time behind every other key, which
 * keeps being answered. Without shares (no rate limit) every caller has the same unlimited,
 * rested share: first come, first served, and a holder keeps the gate until it is done.
 *
 * @module
 */
import { HttpError, unavailable } from '../errors.ts';
import { nextTurn } from '../../src/async/next-turn.ts';

/** A caller's share of costly matching time, which the gate charges a pattern's slices to. */
export interface MatchShare {
  /** Charges `ms` of matching (the share may go into debt by the last slice). */
  spend(ms: number): void;
  /** The matching time left, in ms (negative in debt); the waiting pattern with most goes first. */
  left(): number;
  /** True when the share is whole: the caller's pattern may match its first slice ungated. */
  rested(): boolean;
  /** The 429 to answer while the share is used up (each call counts one refusal); else null. */
  refusal(): HttpError | null;
}

/**
 * The 429 of a pattern refused because the share it was charged to is used up, naming that share:
 * a caller that waited on this matching with another share matches again with its own rather
 * than answer another key's refusal.
 */
export class ShareRefusal extends HttpError {
  /** The share that is used up. */
  readonly share: MatchShare;

  constructor(share: MatchShare, refusal: HttpError) {
    super(refusal.code, refusal.message, { ...refusal.headers }, { cause: refusal });
    this.name = 'ShareRefusal';
    this.share = share;
  }

  /** True when `error` refused a share other than `share` (so `share`'s caller may go on). */
  static ofAnother(error: unknown, share: MatchShare | undefined): boolean {
    return error instanceof ShareRefusal && error.share !== share;
  }
}

/** The share of callers whose matching is not limited. */
export const UNLIMITED_SHARE: MatchShare = {
  spend: () => {},
  left: () => Number.POSITIVE_INFINITY,
  rested: () => true,
  refusal: () => null,
};

/** Options of {@link MatchGate}. */
export interface MatchGateOptions {
  /** Longest wait for the turn, in ms, before the pattern is answered 503. */
  readonly maxWaitMs: number;
  /** The clock of the matching time charged to shares, in ms (default `performance.now`). */
  readonly clockMs?: () => number;
}

/** The turns of one pattern's matching. */
export interface MatchTurns {
  /**
   * Charges the slice that just ended, lets other work go first, then continues (taking the
   * gate, or waiting for it, first). Rejects with the share's 429 once it is used up.
   */
  nextTurn(): Promise<void>;
  /** Charges the last slice and gives the gate to the next pattern waiting. Idempotent. */
  release(): void;
}

interface Turn {
  readonly id: symbol;
  readonly share: MatchShare;
}

interface Waiter extends Turn {
  readonly grant: () => void;
}

/**
 * Lets one costly pattern at a time match beyond its first slice.
 *
 * @example
 * ```ts
 * const gate = new MatchGate({ maxWaitMs: 1_000 });
 * const turns = await gate.open(share);
 * try {
 *   await matchHosts(entries, pattern, { budgetMs: 1_000, nextTurn: turns.nextTurn });
 * } finally {
 *   turns.release();
 * }
 * ```
 */
export class MatchGate {
  readonly #maxWaitMs: number;
  readonly #clockMs: () => number;
  #holder: Turn | null = null;
  readonly #waiting: Waiter[] = [];

  constructor(options: MatchGateOptions) {
    const { maxWaitMs } = options;
    if (!Number.isInteger(maxWaitMs) || maxWaitMs < 1) {
      throw new RangeError(`'maxWaitMs' must be a positive integer: current value is ${maxWaitMs}`);
    }
    this.#maxWaitMs = maxWaitMs;
    this.#clockMs = options.clockMs ?? (() => performance.now());
  }

  /**
   * The turns of one pattern's matching, charged to `share`, once it may start (at once when the
   * share is rested, else when it holds the gate); call `release` when it ends, however it ends.
   * Rejects with the share's 429 when it is used up already (the pattern does not start), or with
   * 503 when the gate is not its within `maxWaitMs`.
   */
  async open(share: MatchShare = UNLIMITED_SHARE): Promise<MatchTurns> {
    const refused = share.refusal();
    if (refused !== null) throw new ShareRefusal(share, refused);
    const turn: Turn = { id: Symbol('matching'), share };
    if (!share.rested()) {
      if (this.#holder === null) this.#holder = turn;
      else await this.#wait(turn);
    }
    let resumedAt = this.#clockMs();
    let released = false;
    const charge = () => {
      const now = this.#clockMs();
      share.spend(now - resumedAt);
      resumedAt = now;
    };
    return {
      nextTurn: async () => {
        charge();
        const refusal = share.refusal();
        if (refusal !== null) throw new ShareRefusal(share, refusal);
        try {
          await this.#turn(turn);
        } finally {
          // Time spent waiting for the gate is not matching: it is not charged.
          resumedAt = this.#clockMs();
        }
      },
      release: () => {
        if (released) return;
        released = true;
        charge();
        if (this.#holder?.id !== turn.id) return;
        const next = this.#preferred();
        if (next === undefined) this.#holder = null;
        else this.#grant(next);
      },
    };
  }

  async #turn(turn: Turn): Promise<void> {
    if (this.#holder === null) this.#holder = turn;
    if (this.#holder.id !== turn.id) return await this.#wait(turn);
    const preferred = this.#preferred();
    if (preferred !== undefined && preferred.share.left() > turn.share.left()) {
      this.#grant(preferred);
      return await this.#wait(turn);
    }
    await nextTurn();
  }

  /** The waiting pattern whose caller has the most share left; the earliest of equals. */
  #preferred(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const waiter of this.#waiting) {
      if (best === undefined || waiter.share.left() > best.share.left()) best = waiter;
    }
    return best;
  }

  #grant(waiter: Waiter): void {
    const index = this.#waiting.indexOf(waiter);
    if (index !== -1) this.#waiting.splice(index, 1);
    this.#holder = waiter;
    waiter.grant();
  }

  #wait(turn: Turn): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        ...turn,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const index = this.#waiting.indexOf(waiter);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(unavailable(
          `another costly project pattern is being matched, and this one waited ${this.#maxWaitMs} ms for its turn; retry shortly (a plain project ref is matched by substring search and never waits)`,
        ));
      }, this.#maxWaitMs);
      this.#waiting.push(waiter);
    });
  }
}
