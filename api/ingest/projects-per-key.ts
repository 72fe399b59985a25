/**
 * A bound on the distinct projects one API key may ingest events of per UTC day (of the server's
 * clock). Each new project is rollups, a ring buffer and registry entries kept for up to 90 days
 * (about 5 KB of heap in the embedded store, 10 KB of RSS), so a key sending every event for a new
 * project would grow the store without end while every per-project bound holds. Events of a project beyond the bound
 * are refused one by one, with a reason naming the bound; events of projects the key already sent
 * that day keep being accepted. The count is this process's: each API replica keeps its own.
 *
 * @example
 * ```ts
 * const perKey = new ProjectsPerKey({ maxPerDay: 1_000, nowUs: () => Date.now() * 1000 });
 * const admission = perKey.admit(keyIndex, validated.accepted);
 * // Once the sink settled: false when it stored none of admission.admitted.
 * perKey.settle(admission, true);
 * ```
 *
 * @module
 */
import { truncate } from '../../src/time/grain.ts';
import { formatTimestamp } from '../../src/time/timestamp.ts';
import type { AcceptedEvent, ItemError } from './validate.ts';

/** The variable that sets the bound (named in every refusal). */
export const PROJECTS_PER_KEY_VARIABLE = 'INGEST_MAX_PROJECTS_PER_KEY_PER_DAY';

/** Options of {@link ProjectsPerKey}. */
export interface ProjectsPerKeyOptions {
  /** Most distinct projects one key may send events of per UTC day. */
  readonly maxPerDay: number;
  /** The clock, in Unix microseconds: the day is its UTC day. */
  readonly nowUs: () => number;
}

/** What {@link ProjectsPerKey.admit} decided, in body order; hand it to {@link ProjectsPerKey.settle}. */
export interface KeyAdmission {
  readonly admitted: AcceptedEvent[];
  readonly refused: ItemError[];
  /** The key position, the UTC day and the distinct projects of `admitted`, for `settle`. */
  readonly ticket: AdmissionTicket;
}

/** Which counts an admission holds, so that settling it touches only those. */
export interface AdmissionTicket {
  readonly keyIndex: number;
  readonly dayUs: number;
  readonly projects: readonly string[];
}

/** A project a key sent on the current day. */
interface SentProject {
  /** Some body with its events was stored (or may have been): it counts for the rest of the day. */
  stored: boolean;
  /** Admissions with its events whose body is not settled yet. */
  inFlight: number;
}

/** The projects each key sent today. */
export class ProjectsPerKey {
  readonly #maxPerDay: number;
  readonly #nowUs: () => number;
  #dayUs = Number.NEGATIVE_INFINITY;
  /** By key position (never the key itself), the projects it sent on {@link #dayUs}. */
  readonly #projects = new Map<number, Map<string, SentProject>>();
  /** Admissions already settled: a second settle would take back another admission's count. */
  readonly #settled = new WeakSet<AdmissionTicket>();

  constructor(options: ProjectsPerKeyOptions) {
    if (!Number.isSafeInteger(options.maxPerDay) || options.maxPerDay < 1) {
      throw new RangeError(
        `'maxPerDay' must be a positive integer: current value is ${options.maxPerDay}`,
      );
    }
    this.#maxPerDay = options.maxPerDay;
    this.#nowUs = options.nowUs;
  }

  /**
   * Splits `events` sent with the key at `keyIndex` into those admitted (their project was sent
   * today, or fits within the bound, which it now counts against) and those refused. Every
   * admission is to be settled once its body was stored or refused.
   */
  admit(keyIndex: number, events: readonly AcceptedEvent[]): KeyAdmission {
    const nowUs = this.#nowUs();
    const dayUs = truncate(nowUs, 'day');
    if (dayUs !== this.#dayUs) {
      this.#dayUs = dayUs;
      this.#projects.clear();
    }
    let sent = this.#projects.get(keyIndex);
    if (sent === undefined) {
      sent = new Map();
      this.#projects.set(keyIndex, sent);
    }
    const admitted: AcceptedEvent[] = [];
    const refused: ItemError[] = [];
    const touched = new Set<string>();
    for (const accepted of events) {
      const project = accepted.event.project;
      if (!touched.has(project)) {
        const known = sent.get(project);
        if (known !== undefined) known.inFlight++;
        else if (sent.size >= this.#maxPerDay) {
          refused.push({ line: accepted.line, reason: this.#reason(project) });
          continue;
        } else sent.set(project, { stored: false, inFlight: 1 });
        touched.add(project);
      }
      admitted.push(accepted);
    }
    return { admitted, refused, ticket: { keyIndex, dayUs, projects: [...touched] } };
  }

  /**
   * Ends `admission`: `stored` false when none of its events were stored (the store refused the
   * body whole). A project that no body stored, and that no admission still in flight relies on,
   * is taken back, so that a refused body does not use up the key's bound; an admission of an
   * earlier day touches nothing (that day's count is gone).
   */
  settle(admission: KeyAdmission, stored: boolean): void {
    const { ticket } = admission;
    if (this.#settled.has(ticket)) return;
    this.#settled.add(ticket);
    const { keyIndex, dayUs, projects } = ticket;
    if (dayUs !== this.#dayUs) return;
    const sent = this.#projects.get(keyIndex);
    if (sent === undefined) return;
    for (const project of projects) {
      const known = sent.get(project);
      if (known === undefined) continue;
      known.inFlight--;
      if (stored) known.stored = true;
      else if (known.inFlight <= 0 && !known.stored) sent.delete(project);
    }
  }

  #reason(project: string): string {
    const day = formatTimestamp(this.#dayUs).slice(0, 10);
    return `this API key already sent events of ${this.#maxPerDay} distinct projects today ` +
      `(${day}, UTC), the most one key may per day (${PROJECTS_PER_KEY_VARIABLE}=` +
      `${this.#maxPerDay}): events of project ${JSON.stringify(project.slice(0, 200))} are ` +
      'refused until 00:00 UTC; raise the bound or send them with another key';
  }
}
