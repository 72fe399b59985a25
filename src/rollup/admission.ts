/**
 * Per-project bounds on the keys producers create (issue 12, item 6): a function id or a request
 * host is a set of bucket keys at every grain, and both are free text, so one producer could
 * create keys without end. Each stream admits, per project and UTC day of event time, at most
 * {@link PROJECT_DAY_BOUNDS} distinct function ids and distinct request hosts. An event that
 * would go beyond a bound is refused whole (a dead letter of kind `cardinality`, or an ingest
 * error); events naming only keys already admitted that day keep being folded.
 *
 * Every replay decides the same: the keys admitted so far are a set per (project, stream, day)
 * in the store, in the project's key group, written in the same atomic commit as the project's
 * watermark of the stream. So the set always matches the offset the project holds: events the
 * project already holds are skipped, and the next one is judged against exactly the keys the
 * events before it admitted, whatever crashed or was replayed in between. The decision depends
 * on the event's own day only, never on the clock.
 *
 * @module
 */
import { type LogEvent, type Rejection, rollupEventOf } from '../events/types.ts';
import { DAY_US } from '../time/civil.ts';
import { truncate } from '../time/grain.ts';
import { MAX_EVENT_AGE_US } from '../events/limits.ts';
import { formatTimestamp } from '../time/timestamp.ts';
import { EXPIRY_SLACK_US, projectPrefix } from './keys.ts';

/** Most distinct keys of each kind one stream admits per project and UTC day of event time. */
export const PROJECT_DAY_BOUNDS = {
  /** Distinct `function_id`s (each is a scope of invocation-stats keys at every grain). */
  functions: 1_000,
  /** Distinct request hosts (each is a scope of API-counts keys at every grain). */
  hosts: 1_000,
} as const;

/** The kinds of bounded keys. */
type KeyKind = keyof typeof PROJECT_DAY_BOUNDS;

/** The keys of one kind an event names. */
const NAMES: Readonly<Record<KeyKind, string>> = {
  functions: 'function_id',
  hosts: 'request host',
};

/** Members of the stored set: the kind's letter, then the key. */
const PREFIX: Readonly<Record<KeyKind, string>> = { functions: 'f', hosts: 'h' };

/**
 * Where the keys `stream` admitted for `project` on the day starting `dayUs` are kept: a sorted
 * set in the project's key group (every member's score is 0).
 */
export function admittedKeysKey(project: string, stream: string, dayUs: number): string {
  return `${projectPrefix(project)}:admitted:${stream}:${dayUs / 1_000_000}`;
}

/**
 * When the set of a day may be forgotten (Unix ms): once no event of that day can be folded any
 * more (events older than {@link MAX_EVENT_AGE_US} are refused).
 */
export function admittedKeysExpiryMs(dayUs: number): number {
  return Math.floor((dayUs + DAY_US + MAX_EVENT_AGE_US + EXPIRY_SLACK_US) / 1000);
}

/** The UTC day (its start, µs) an event counts in. */
export function admissionDay(event: LogEvent): number {
  return truncate(event.timestampUs, 'day');
}

/** The keys of one project and day admitted so far (stored, and folded since). */
export class AdmittedKeys {
  readonly #members: Readonly<Record<KeyKind, Set<string>>> = {
    functions: new Set(),
    hosts: new Set(),
  };

  /** The keys of the stored members (those of other layouts are ignored). */
  constructor(stored: Iterable<string> = []) {
    for (const member of stored) {
      if (member.startsWith(PREFIX.functions)) this.#members.functions.add(member.slice(1));
      else if (member.startsWith(PREFIX.hosts)) this.#members.hosts.add(member.slice(1));
    }
  }

  /** How many keys of `kind` are admitted. */
  count(kind: KeyKind): number {
    return this.#members[kind].size;
  }

  /**
   * Admits the keys `event` names, answering the members newly admitted (to store with the
   * event's commit), or refuses the whole event when one kind would go beyond its bound; a
   * refused event admits nothing. `stream` names the stream in the refusal.
   */
  admit(
    event: LogEvent,
    stream: string,
  ): { readonly ok: true; readonly added: readonly string[] } | {
    readonly ok: false;
    readonly rejection: Rejection;
  } {
    // Nearly every event names only keys admitted before: that is answered without allocating.
    if (this.#knowsAll(event)) return ADMITTED_NOTHING;
    const named = keysOf(event);
    const fresh: Record<KeyKind, string[]> = { functions: [], hosts: [] };
    for (const kind of ['functions', 'hosts'] as const) {
      const known = this.#members[kind];
      for (const key of named[kind]) if (!known.has(key)) fresh[kind].push(key);
      const total = known.size + fresh[kind].length;
      if (total > PROJECT_DAY_BOUNDS[kind]) {
        return { ok: false, rejection: refusal(event, stream, kind, known.size, fresh[kind]) };
      }
    }
    const added: string[] = [];
    for (const kind of ['functions', 'hosts'] as const) {
      for (const key of fresh[kind]) {
        this.#members[kind].add(key);
        added.push(`${PREFIX[kind]}${key}`);
      }
    }
    return { ok: true, added };
  }

  /** Whether every bounded key `event` names is admitted already. */
  #knowsAll(logEvent: LogEvent): boolean {
    const event = rollupEventOf(logEvent);
    if (event === null) return true;
    if (event.source === 'edge') {
      const { hosts } = this.#members;
      for (const { host } of event.requests) if (host !== null && !hosts.has(host)) return false;
      return true;
    }
    const { functions } = this.#members;
    for (const { functionId } of event.invocations) {
      if (functionId !== null && !functions.has(functionId)) return false;
    }
    return true;
  }
}

const ADMITTED_NOTHING = { ok: true, added: [] } as const;

/** Whether `event` names any bounded key (others need no admission). */
export function namesBoundedKeys(logEvent: LogEvent): boolean {
  const event = rollupEventOf(logEvent);
  if (event === null) return false;
  if (event.source === 'edge') return event.requests.some((request) => request.host !== null);
  return event.invocations.some((invocation) => invocation.functionId !== null);
}

/** The distinct bounded keys `event` names, by kind. */
function keysOf(logEvent: LogEvent): Record<KeyKind, Set<string>> {
  const keys: Record<KeyKind, Set<string>> = { functions: new Set(), hosts: new Set() };
  const event = rollupEventOf(logEvent);
  if (event === null) return keys;
  if (event.source === 'edge') {
    for (const request of event.requests) if (request.host !== null) keys.hosts.add(request.host);
  } else {
    for (const invocation of event.invocations) {
      if (invocation.functionId !== null) keys.functions.add(invocation.functionId);
    }
  }
  return keys;
}

function refusal(
  event: LogEvent,
  stream: string,
  kind: KeyKind,
  admitted: number,
  fresh: readonly string[],
): Rejection {
  const day = formatTimestamp(admissionDay(event)).slice(0, 10);
  const first = JSON.stringify(fresh[0] ?? '').slice(0, 200);
  return {
    kind: 'cardinality',
    reason: `project ${event.project} already has ${admitted} distinct ${NAMES[kind]}s on ` +
      `${day} (UTC) in stream ${stream}, the most one stream folds per project and day ` +
      `(${PROJECT_DAY_BOUNDS[kind]}); this event names ${fresh.length} more (${first} first)`,
    path: '',
  };
}
