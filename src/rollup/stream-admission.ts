/**
 * One stream's side of the per-project key bounds (see `admission.ts`): the keys the stream
 * admitted for each project and UTC day, read from the store once the project's watermark is
 * known, kept with the project in the writer's {@link ProjectCache}, and every event judged
 * against them in stream order.
 *
 * @example
 * ```ts
 * const admission = new StreamAdmission({ store, stream: 'logs.edge/3', cache, nowUs, replayed });
 * await admission.load(events); // after their projects' watermarks
 * const decided = admission.admit(event, cache.known(event.project));
 * ```
 *
 * @module
 */
import type { LogEvent, Rejection } from '../events/types.ts';
import type { RollupStore } from '../store/port.ts';
import {
  admissionDay,
  AdmittedKeys,
  admittedKeysExpiryMs,
  admittedKeysKey,
  namesBoundedKeys,
} from './admission.ts';
import type { KnownProject, ProjectCache } from './project-cache.ts';
import type { StreamKind } from './stream-kind.ts';

/** An admission that adds no key (nothing to commit for it). */
const ADMITTED_NOTHING = { ok: true, key: '', added: [], expireAtMs: 0 } as const;

/** What {@link StreamAdmission.admit} decided. */
export type Admission =
  | {
    readonly ok: true;
    /** The set the newly admitted keys go to (commit them with the event's project); `` when none. */
    readonly key: string;
    readonly added: readonly string[];
    readonly expireAtMs: number;
  }
  | { readonly ok: false; readonly rejection: Rejection };

/** Options of {@link StreamAdmission}. */
export interface StreamAdmissionOptions {
  readonly store: RollupStore;
  readonly stream: string;
  /** The writer's cache, where each project's admitted keys are kept. */
  readonly cache: ProjectCache;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /** The stream's kind, whose rules say how long its sets of admitted keys live. */
  readonly kind: StreamKind;
}

/** Judges one stream's events by their projects' bounds. */
export class StreamAdmission {
  readonly #store: RollupStore;
  readonly #stream: string;
  readonly #cache: ProjectCache;
  readonly #nowUs: () => number;
  readonly #kind: StreamKind;

  constructor(options: StreamAdmissionOptions) {
    this.#store = options.store;
    this.#stream = options.stream;
    this.#cache = options.cache;
    this.#nowUs = options.nowUs;
    this.#kind = options.kind;
  }

  /**
   * Reads the keys this stream admitted for the project and day of each of `events` that names
   * bounded keys and is not known yet (see `admission.ts`). Call it once their projects'
   * watermarks are loaded, and before {@link admit}.
   */
  async load(events: Iterable<LogEvent>): Promise<void> {
    const wanted = new Map<string, { known: KnownProject; dayUs: number }>();
    for (const event of events) {
      if (!namesBoundedKeys(event)) continue;
      // A project forgotten since its watermark was loaded is loaded again, with its keys, when
      // its event comes (see `ready`).
      const known = this.#cache.get(event.project);
      const dayUs = admissionDay(event);
      if (known === undefined || known.admitted.has(dayUs)) continue;
      wanted.set(admittedKeysKey(event.project, this.#stream, dayUs), { known, dayUs });
    }
    if (wanted.size === 0) return;
    const entries = [...wanted];
    // Every member's score is 0.
    const stored = await Promise.all(entries.map(([key]) => this.#store.membersSince(key, 0)));
    entries.forEach(([, { known, dayUs }], i) => {
      // A fold may have admitted keys of the day while the read was under way: keep those.
      if (known.admitted.has(dayUs)) return;
      const keys = new AdmittedKeys((stored[i] ?? []).map(({ member }) => member));
      known.admitted.set(dayUs, { keys, usedIn: this.#cache.flushes });
    });
  }

  /**
   * Whether `event` of the project `known` can be judged by {@link admit} now: it names no
   * bounded key, or the keys of its project and day are loaded.
   */
  ready(event: LogEvent, known: KnownProject): boolean {
    return !namesBoundedKeys(event) || known.admitted.has(admissionDay(event));
  }

  /**
   * Admits `event` of the project `known` by the project's bounds, in stream order: the keys it
   * adds (to commit with its project, through `Fold.noteAdmitted`), or why it is refused.
   */
  admit(event: LogEvent, known: KnownProject): Admission {
    if (!namesBoundedKeys(event)) return ADMITTED_NOTHING;
    const dayUs = admissionDay(event);
    const day = known.admitted.get(dayUs);
    if (day === undefined) {
      throw new Error(
        `stream ${this.#stream}: an event of project ${event.project} was admitted before the ` +
          'keys of its day were loaded (load them first)',
      );
    }
    day.usedIn = this.#cache.flushes;
    const decided = day.keys.admit(event, this.#stream);
    if (!decided.ok) return decided;
    if (decided.added.length === 0) return ADMITTED_NOTHING;
    const expireAtMs = admittedKeysExpiryMs(dayUs);
    return {
      ok: true,
      key: admittedKeysKey(event.project, this.#stream, dayUs),
      added: decided.added,
      expireAtMs: this.#kind.admittedExpiryMs(expireAtMs, this.#nowUs()),
    };
  }
}
