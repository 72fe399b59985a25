/**
 * The projects with the newest requests, kept in order as sightings arrive, so the explorer's
 * list is read, never sorted: only the first `capacity` are kept, and a sighting costs a
 * comparison with the last of them (a binary search and a move within them when it ranks).
 *
 * Exact as long as a project's newest request time only grows and projects leave only by age
 * (what the host registry view does): a project outside the kept ones is never newer than the
 * last kept one, so when a kept project ages out, every project outside has aged out too.
 *
 * @example
 * ```ts
 * const newest = new NewestProjects(200);
 * newest.see('abc', 1_795_546_847_000_000);
 * newest.list(10); // [{ project: 'abc', newestUs: 1795546847000000 }]
 * ```
 *
 * @module
 */

/** A project and the time of its newest request (µs). */
export interface SeenProject {
  readonly project: string;
  readonly newestUs: number;
}

/** Newest first; equal times by project name. */
function compare(a: SeenProject, b: SeenProject): number {
  return b.newestUs - a.newestUs || (a.project < b.project ? -1 : a.project > b.project ? 1 : 0);
}

/** The `capacity` projects with the newest requests, newest first. */
export class NewestProjects {
  readonly #capacity: number;
  /** Newest first. */
  readonly #ranked: SeenProject[] = [];
  /** The kept projects' newest request times. */
  readonly #kept = new Map<string, number>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`'capacity' must be a positive integer: current value is ${capacity}`);
    }
    this.#capacity = capacity;
  }

  /** Notes a request of `project` at `newestUs`; an older one than known changes nothing. */
  see(project: string, newestUs: number): void {
    const known = this.#kept.get(project);
    if (known !== undefined) {
      if (newestUs <= known) return;
      this.#ranked.splice(this.#position({ project, newestUs: known }), 1);
    } else if (this.#ranked.length === this.#capacity) {
      const last = this.#ranked[this.#ranked.length - 1];
      if (last !== undefined && compare({ project, newestUs }, last) >= 0) return;
      this.#ranked.pop();
      if (last !== undefined) this.#kept.delete(last.project);
    }
    const seen = { project, newestUs };
    this.#ranked.splice(this.#position(seen), 0, seen);
    this.#kept.set(project, newestUs);
  }

  /** Forgets the projects whose newest request is before `horizonUs`. */
  dropBefore(horizonUs: number): void {
    while (true) {
      const last = this.#ranked[this.#ranked.length - 1];
      if (last === undefined || last.newestUs >= horizonUs) return;
      this.#ranked.pop();
      this.#kept.delete(last.project);
    }
  }

  /** The first `limit` projects, newest first (at most the capacity). */
  list(limit: number): SeenProject[] {
    return this.#ranked.slice(0, limit);
  }

  /** Where `seen` is, or would go, in {@link #ranked}. */
  #position(seen: SeenProject): number {
    let low = 0;
    let high = this.#ranked.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.#ranked[mid] as SeenProject, seen) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
