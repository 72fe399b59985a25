/**
 * The streaming fold: every valid event, as it arrives, is added to the pending delta of each
 * bucket it falls in (invocation stats of the project and of the function at every grain, API
 * counts of the request host at every grain, the project's recent-log ring buffer, the host
 * registry). The delta is then merged into the store by a {@link ./partition-writer.ts}.
 *
 * Per event, states are found by project, scope and bucket number; key strings are built once
 * per key at {@link Fold.take}, not once per event and grain, since the fold runs on every event.
 *
 * @example
 * ```ts
 * const fold = new Fold();
 * fold.add(event, 'logs.edge/3@1042', Date.now() * 1000);
 * const delta = fold.take(); // by project: bucket states, ring-buffer entries, hosts
 * ```
 *
 * @module
 */
import type { EdgeEvent, FunctionEdgeEvent, LogEvent } from '../events/types.ts';
import type { ScoredMember } from '../store/port.ts';
import { GRAINS, truncate } from '../time/grain.ts';
import {
  bucketExpiryMs,
  functionScope,
  hostScope,
  INVOCATION_HORIZON_US,
  invocationKey,
  projectPrefix,
  USAGE_HORIZON_US,
  usageKey,
} from './keys.ts';
import type { Grain } from '../time/grain.ts';
import { type InvocationStats, invocationStats } from './invocation-stats.ts';
import { recentLogMember } from './recent-logs.ts';
import { familiesOf } from '../contract/families.ts';
import { type UsageCounts, usageCounts } from './usage-counts.ts';

/** A pending bucket state, tagged with its aggregate so the writer knows how to merge it. */
export type PendingState =
  | { readonly kind: 'invocation'; state: InvocationStats; readonly expireAtMs: number }
  | { readonly kind: 'usage'; state: UsageCounts; readonly expireAtMs: number };

/** Everything folded for one project since the last {@link Fold.take}. */
export interface ProjectDelta {
  /** Pending bucket states by key. */
  readonly states: Map<string, PendingState>;
  /** Additions to the project's ring buffer of recent logs. */
  readonly logs: ScoredMember[];
  /** Request hosts with the newest event time seen (µs), for the host registry. */
  readonly hosts: Map<string, number>;
}

/** Everything folded since the last {@link Fold.take}, by project. */
export interface RollupDelta {
  readonly projects: Map<string, ProjectDelta>;
  /** Number of events folded. */
  readonly events: number;
}

/** Pending states of one scope, per grain (in {@link GRAINS} order), by bucket start (µs). */
type GrainBuckets<S> = readonly [Map<number, S>, Map<number, S>, Map<number, S>, Map<number, S>];

type InvocationPending = Extract<PendingState, { kind: 'invocation' }>;
type UsagePending = Extract<PendingState, { kind: 'usage' }>;

function grainBuckets<S>(): GrainBuckets<S> {
  return [new Map(), new Map(), new Map(), new Map()];
}

/** Requests of one host folded for one project. */
interface HostFold {
  readonly buckets: GrainBuckets<UsagePending>;
  /** Newest event time seen (µs), for the host registry. */
  newestUs: number;
}

/** Everything folded for one project. */
interface ProjectFold {
  /** Invocation stats of all the project's functions. */
  readonly all: GrainBuckets<InvocationPending>;
  readonly functions: Map<string, GrainBuckets<InvocationPending>>;
  readonly hosts: Map<string, HostFold>;
  readonly logs: ScoredMember[];
}

/** Accumulates the delta of a stream of valid events. */
export class Fold {
  #projects = new Map<string, ProjectFold>();
  #events = 0;

  /** Number of events folded since the last {@link take}. */
  get size(): number {
    return this.#events;
  }

  /**
   * Folds one event. `position` names where it came from (unique per event, later positions
   * sorting after earlier ones within a stream); `nowUs` decides which grains are still read.
   */
  add(event: LogEvent, position: string, nowUs: number): void {
    let project = this.#projects.get(event.project);
    if (project === undefined) {
      project = { all: grainBuckets(), functions: new Map(), hosts: new Map(), logs: [] };
      this.#projects.set(event.project, project);
    }
    if (event.source === 'edge') addEdge(project, event, position, nowUs / 1000);
    else addFunctionEdge(project, event, nowUs / 1000);
    this.#events += 1;
  }

  /** Hands over the accumulated delta and starts a new one. */
  take(): RollupDelta {
    const delta: RollupDelta = { projects: new Map(), events: this.#events };
    for (const [name, project] of this.#projects) {
      const prefix = projectPrefix(name);
      const states = new Map<string, PendingState>();
      putStates(
        states,
        project.all,
        (grain, bucket) => invocationKey(prefix, functionScope(null), grain, bucket),
      );
      for (const [functionId, buckets] of project.functions) {
        const scope = functionScope(functionId);
        putStates(states, buckets, (grain, bucket) => invocationKey(prefix, scope, grain, bucket));
      }
      const hosts = new Map<string, number>();
      for (const [host, fold] of project.hosts) {
        const scope = hostScope(host);
        putStates(
          states,
          fold.buckets,
          (grain, bucket) => usageKey(prefix, scope, grain, bucket),
        );
        hosts.set(host, fold.newestUs);
      }
      delta.projects.set(name, { states, logs: project.logs, hosts });
    }
    this.#projects = new Map();
    this.#events = 0;
    return delta;
  }
}

function putStates<S extends PendingState>(
  states: Map<string, PendingState>,
  buckets: GrainBuckets<S>,
  key: (grain: Grain, bucketUs: number) => string,
): void {
  GRAINS.forEach((grain, i) => {
    for (const [bucket, pending] of buckets[i] ?? []) states.set(key(grain, bucket), pending);
  });
}

function addFunctionEdge(project: ProjectFold, event: FunctionEdgeEvent, nowMs: number): void {
  if (event.invocations.length === 0) return;
  // parse guarantees every entry names the event's project.
  const scopes = event.invocations.map((invocation) => {
    if (invocation.functionId === null) return null;
    let buckets = project.functions.get(invocation.functionId);
    if (buckets === undefined) {
      buckets = grainBuckets();
      project.functions.set(invocation.functionId, buckets);
    }
    return buckets;
  });
  for (let i = 0; i < GRAINS.length; i++) {
    const grain = GRAINS[i] as Grain;
    const bucket = truncate(event.timestampUs, grain);
    const expireAtMs = bucketExpiryMs(bucket, grain, INVOCATION_HORIZON_US[grain]);
    if (expireAtMs <= nowMs) continue;
    const all = invocationState(project.all[i], bucket, expireAtMs);
    event.invocations.forEach((invocation, j) => {
      all.state = invocationStats.add(all.state, invocation);
      const scope = scopes[j]?.[i];
      if (scope === undefined) return;
      const one = invocationState(scope, bucket, expireAtMs);
      one.state = invocationStats.add(one.state, invocation);
    });
  }
}

function invocationState(
  buckets: Map<number, InvocationPending> | undefined,
  bucket: number,
  expireAtMs: number,
): InvocationPending {
  let pending = buckets?.get(bucket);
  if (pending === undefined) {
    pending = { kind: 'invocation', state: invocationStats.empty(), expireAtMs };
    buckets?.set(bucket, pending);
  }
  return pending;
}

function addEdge(project: ProjectFold, event: EdgeEvent, position: string, nowMs: number): void {
  project.logs.push(recentLogMember(event, position));
  for (const request of event.requests) {
    if (request.host === null) continue;
    let host = project.hosts.get(request.host);
    if (host === undefined) {
      host = { buckets: grainBuckets(), newestUs: event.timestampUs };
      project.hosts.set(request.host, host);
    } else if (host.newestUs < event.timestampUs) {
      host.newestUs = event.timestampUs;
    }
    const families = familiesOf(request.path);
    for (let i = 0; i < GRAINS.length; i++) {
      const grain = GRAINS[i] as Grain;
      const bucket = truncate(event.timestampUs, grain);
      const expireAtMs = bucketExpiryMs(bucket, grain, USAGE_HORIZON_US[grain]);
      if (expireAtMs <= nowMs) continue;
      const buckets = host.buckets[i];
      let pending = buckets?.get(bucket);
      if (pending === undefined) {
        pending = { kind: 'usage', state: usageCounts.empty(), expireAtMs };
        buckets?.set(bucket, pending);
      }
      pending.state = usageCounts.add(pending.state, families);
    }
  }
}
