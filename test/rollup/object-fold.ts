/**
 * The fold as it was before its states went into columns (issue 48): a map per project, scope and
 * bucket, and a state object per bucket, folded one event at a time through the aggregates' own
 * `add`. Kept as the oracle of `fold-columns.test.ts`: the columnar {@link Fold} must hand a flush
 * states whose stored text is byte for byte this one's, in the same order.
 *
 * @module
 */
import type {
  EdgeEvent,
  EdgeRequest,
  FunctionEdgeEvent,
  Invocation,
  LogEvent,
  RollupEvent,
} from '../../src/events/types.ts';
import type { LogflareSource } from '../../src/events/logflare-sources.ts';
import type { WrittenMember } from '../../src/store/port.ts';
import { GRAINS, truncate } from '../../src/time/grain.ts';
import {
  bucketExpiryMs,
  bucketSlot,
  bucketSuffix,
  functionScope,
  hostScope,
  INVOCATION_HORIZON_US,
  invocationBucketKey,
  partAddress,
  projectPrefix,
  USAGE_HORIZON_US,
  usageBucketKey,
} from '../../src/rollup/keys.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import { RecentLogMembers } from '../../src/rollup/recent-logs.ts';
import type { AdmittedWrite, ProjectDelta } from '../../src/rollup/fold-delta.ts';
import type { Aggregate } from '../../src/rollup/aggregate.ts';
import type { InvocationStats } from '../../src/rollup/invocation-stats.ts';
import type { UsageCounts } from '../../src/rollup/usage-counts.ts';

/** A pending bucket state with the aggregate that merges it, writes it and reads it back. */
export interface PendingStateOf<State> {
  readonly aggregate: Aggregate<State, never, unknown>;
  state: State;
  readonly startUs: number;
  readonly expireAtMs: number;
}

/** A pending bucket state of one of the fold's aggregates, tagged by its kind. */
export type PendingState =
  | (PendingStateOf<InvocationStats> & { readonly kind: 'invocation' })
  | (PendingStateOf<UsageCounts> & { readonly kind: 'usage' });

/** A project's delta as this fold hands it over: states as objects, by part address. */
export interface ObjectProjectDelta extends Omit<ProjectDelta, 'states'> {
  readonly states: Map<string, PendingState>;
}

/** Everything folded since the last take, by project. */
export interface ObjectRollupDelta {
  readonly projects: Map<string, ObjectProjectDelta>;
  readonly events: number;
}
import { familiesOf } from '../../src/contract/families.ts';
import { usageCounts } from '../../src/rollup/usage-counts.ts';

type InvocationPending = Extract<PendingState, { kind: 'invocation' }>;
type UsagePending = Extract<PendingState, { kind: 'usage' }>;

/** One bucket of one grain, shared by every event of the fold that falls in it. */
interface Bucket {
  /** Its start (µs). */
  readonly startUs: number;
  /** The tail of its keys ({@link bucketSuffix}). */
  readonly suffix: string;
  /** Its slot in its keys' hashes ({@link bucketSlot}; a second's in its minute's). */
  readonly slot: string | undefined;
  /** When an invocation-stats key of it may be forgotten (Unix ms). */
  readonly invocationExpiryMs: number;
  /** When an API-counts key of it may be forgotten (Unix ms). */
  readonly usageExpiryMs: number;
}

/** The buckets of one second of event time, one per grain in {@link GRAINS} order. */
type TimeSlot = readonly Bucket[];

/** Pending states of one scope, by bucket. */
type ScopeStates<S> = Map<Bucket, S>;

/** Requests of one host folded for one project. */
interface HostFold {
  readonly states: ScopeStates<UsagePending>;
  /** Newest event time seen (µs), for the host registry. */
  newestUs: number;
}

/** Everything folded for one project. */
interface ProjectFold {
  /** Invocation stats of all the project's functions. */
  readonly all: ScopeStates<InvocationPending>;
  readonly functions: Map<string, ScopeStates<InvocationPending>>;
  readonly hosts: Map<string, HostFold>;
  readonly logs: WrittenMember[];
  readonly sources: Map<LogflareSource, WrittenMember[]>;
  readonly admitted: Map<string, AdmittedWrite>;
  /** The newest event time folded (µs). */
  newestUs: number;
}

/** Accumulates the delta of a stream of valid events. */
export class ObjectFold {
  #projects = new Map<string, ProjectFold>();
  /** Time slots by second of event time (Unix seconds). */
  #slots = new Map<number, TimeSlot>();
  /** Buckets of the grains coarser than a second, per grain, by start (Unix seconds). */
  #buckets: readonly Map<number, Bucket>[] = GRAINS.map(() => new Map());
  #events = 0;
  /** The ring-buffer members of the stream's edge events. */
  readonly #members: RecentLogMembers;

  /** A fold of the events of `stream` (named in the positions of its ring-buffer entries). */
  constructor(stream: string) {
    this.#members = new RecentLogMembers(stream);
  }

  /** Number of events folded since the last {@link take}. */
  get size(): number {
    return this.#events;
  }

  /**
   * Folds one event, found at `offset` of the stream (unique per event, later offsets sorting
   * after earlier ones); `nowUs` decides which grains are still read.
   */
  add(logged: LogEvent, offset: number, nowUs: number): void {
    const project = this.#project(logged.project);
    if (logged.timestampUs > project.newestUs) project.newestUs = logged.timestampUs;
    this.#events += 1;
    let event: RollupEvent;
    if (logged.source === 'logflare') {
      sourceRows(project, logged.sourceName).push(this.#members.of(logged, offset));
      if (logged.edge === null) return;
      event = logged.edge;
    } else event = logged;
    const slot = this.#slot(event.timestampUs);
    const nowMs = nowUs / 1000;
    if (event.source === 'edge') {
      project.logs.push(this.#members.of(event, offset));
      addEdge(project, event, slot, nowMs);
    } else addFunctionEdge(project, event, slot, nowMs);
  }

  /**
   * Notes keys the project's bounds admitted (`members`, to add to the set under `key`): they
   * are committed with the project's next commit, as the events that admitted them are.
   */
  noteAdmitted(
    projectName: string,
    key: string,
    members: readonly string[],
    expireAtMs: number,
  ): void {
    if (members.length === 0) return;
    const { admitted } = this.#project(projectName);
    const write = admitted.get(key);
    if (write === undefined) admitted.set(key, { members: [...members], expireAtMs });
    else write.members.push(...members);
  }

  #project(name: string): ProjectFold {
    let project = this.#projects.get(name);
    if (project === undefined) {
      project = {
        all: new Map(),
        functions: new Map(),
        hosts: new Map(),
        logs: [],
        sources: new Map(),
        admitted: new Map(),
        newestUs: Number.NEGATIVE_INFINITY,
      };
      this.#projects.set(name, project);
    }
    return project;
  }

  /** Hands over the accumulated delta and starts a new one. */
  take(): ObjectRollupDelta {
    const delta: ObjectRollupDelta = { projects: new Map(), events: this.#events };
    // forEach, not for-of: a flush runs this once, too seldom for V8 to optimize away the entry
    // arrays of a for-of over a map.
    this.#projects.forEach((project, name) => {
      const prefix = projectPrefix(name);
      const states = new Map<string, PendingState>();
      addInvocationStates(states, prefix, functionScope(null), project.all);
      project.functions.forEach((scoped, functionId) => {
        addInvocationStates(states, prefix, functionScope(functionId), scoped);
      });
      const hosts = new Map<string, number>();
      project.hosts.forEach((fold, host) => {
        const scope = hostScope(host);
        fold.states.forEach((pending, bucket) => {
          states.set(
            partAddress(usageBucketKey(prefix, scope, bucket.suffix), bucket.slot),
            pending,
          );
        });
        hosts.set(host, fold.newestUs);
      });
      delta.projects.set(name, {
        states,
        logs: project.logs,
        sources: project.sources,
        hosts,
        admitted: project.admitted,
        newestUs: project.newestUs,
      });
    });
    this.#projects = new Map();
    this.#slots = new Map();
    this.#buckets = GRAINS.map(() => new Map());
    this.#events = 0;
    return delta;
  }

  /** The buckets of the second of event time `timestampUs` falls in. */
  #slot(timestampUs: number): TimeSlot {
    const second = truncate(timestampUs, 'second') / 1_000_000;
    let slot = this.#slots.get(second);
    if (slot === undefined) {
      slot = GRAINS.map((grain, i) => {
        const startUs = truncate(timestampUs, grain);
        const byStart = this.#buckets[i] as Map<number, Bucket>;
        let bucket = byStart.get(startUs / 1_000_000);
        if (bucket === undefined) {
          bucket = {
            startUs,
            suffix: bucketSuffix(grain, startUs),
            slot: bucketSlot(grain, startUs),
            invocationExpiryMs: bucketExpiryMs(startUs, grain, INVOCATION_HORIZON_US[grain]),
            usageExpiryMs: bucketExpiryMs(startUs, grain, USAGE_HORIZON_US[grain]),
          };
          byStart.set(startUs / 1_000_000, bucket);
        }
        return bucket;
      });
      this.#slots.set(second, slot);
    }
    return slot;
  }
}

/** Adds the pending states of one invocation scope to a delta's states, by part address. */
function addInvocationStates(
  states: Map<string, PendingState>,
  prefix: string,
  scope: string,
  scoped: ScopeStates<InvocationPending>,
): void {
  scoped.forEach((pending, bucket) => {
    states.set(
      partAddress(invocationBucketKey(prefix, scope, bucket.suffix), bucket.slot),
      pending,
    );
  });
}

/** The ring-buffer additions of `source` in `project`'s fold. */
function sourceRows(project: ProjectFold, source: LogflareSource): WrittenMember[] {
  let rows = project.sources.get(source);
  if (rows === undefined) {
    rows = [];
    project.sources.set(source, rows);
  }
  return rows;
}

// The per-event functions below loop by index: a for-of over an array allocates its iterator's
// results wherever V8 has not optimized the loop, and these run once per event.

function addFunctionEdge(
  project: ProjectFold,
  event: FunctionEdgeEvent,
  slot: TimeSlot,
  nowMs: number,
): void {
  // parse guarantees every entry names the event's project.
  const { invocations } = event;
  for (let i = 0; i < invocations.length; i++) {
    const invocation = invocations[i] as Invocation;
    let scoped: ScopeStates<InvocationPending> | undefined;
    if (invocation.functionId !== null) {
      scoped = project.functions.get(invocation.functionId);
      if (scoped === undefined) {
        scoped = new Map();
        project.functions.set(invocation.functionId, scoped);
      }
    }
    for (let g = 0; g < slot.length; g++) {
      const bucket = slot[g] as Bucket;
      const expireAtMs = bucket.invocationExpiryMs;
      if (expireAtMs <= nowMs) continue;
      const all = invocationState(project.all, bucket, expireAtMs);
      all.state = invocationStats.add(all.state, invocation);
      if (scoped === undefined) continue;
      const one = invocationState(scoped, bucket, expireAtMs);
      one.state = invocationStats.add(one.state, invocation);
    }
  }
}

function invocationState(
  states: ScopeStates<InvocationPending>,
  bucket: Bucket,
  expireAtMs: number,
): InvocationPending {
  let pending = states.get(bucket);
  if (pending === undefined) {
    pending = {
      kind: 'invocation',
      aggregate: invocationStats,
      state: invocationStats.empty(),
      startUs: bucket.startUs,
      expireAtMs,
    };
    states.set(bucket, pending);
  }
  return pending;
}

function addEdge(project: ProjectFold, event: EdgeEvent, slot: TimeSlot, nowMs: number): void {
  const { requests } = event;
  for (let i = 0; i < requests.length; i++) {
    const request = requests[i] as EdgeRequest;
    if (request.host === null) continue;
    let host = project.hosts.get(request.host);
    if (host === undefined) {
      host = { states: new Map(), newestUs: event.timestampUs };
      project.hosts.set(request.host, host);
    } else if (host.newestUs < event.timestampUs) {
      host.newestUs = event.timestampUs;
    }
    const families = familiesOf(request.path);
    for (let g = 0; g < slot.length; g++) {
      const bucket = slot[g] as Bucket;
      const expireAtMs = bucket.usageExpiryMs;
      if (expireAtMs <= nowMs) continue;
      let pending = host.states.get(bucket);
      if (pending === undefined) {
        pending = {
          kind: 'usage',
          aggregate: usageCounts,
          state: usageCounts.empty(),
          startUs: bucket.startUs,
          expireAtMs,
        };
        host.states.set(bucket, pending);
      }
      pending.state = usageCounts.add(pending.state, families);
    }
  }
}
