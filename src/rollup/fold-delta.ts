/**
 * What a {@link ./fold.ts} hands a flush: by project, the pending bucket states by where their
 * parts live, the ring-buffer entries, the hosts seen and the keys admitted.
 *
 * @module
 */
import type { LogflareSource } from '../events/logflare-sources.ts';
import type { WrittenMember } from '../store/port.ts';
import type { RegisteredHost } from './keys.ts';
import type { StateColumns, StateKind } from './state-columns.ts';
import { type InvocationStats, invocationStats } from './invocation-stats.ts';
import { type UsageCounts, usageCounts } from './usage-counts.ts';

/**
 * A bucket state of a delta: where its part lives ({@link partAddress}), its aggregate, its record
 * in the delta's {@link StateColumns}, its bucket's start (µs) and when its key may be forgotten
 * (Unix ms).
 */
export interface DeltaState {
  readonly address: string;
  readonly kind: StateKind;
  readonly record: number;
  readonly startUs: number;
  readonly expireAtMs: number;
}

/** A delta state as its aggregate's object, tagged by its kind. */
export type StateObject =
  | { readonly kind: 'invocation'; readonly state: InvocationStats }
  | { readonly kind: 'usage'; readonly state: UsageCounts };

/**
 * The aggregate's object of one state of `delta`, read back from its stored text: for tools and
 * tests that look into a delta (the writer merges and writes the columns themselves).
 *
 * @example
 * ```ts
 * const [first] = delta.projects.get('abc')?.states ?? [];
 * stateObject(delta, first); // { kind: 'invocation', state: { count: 2, … } }
 * ```
 */
export function stateObject(delta: RollupDelta, { kind, record }: DeltaState): StateObject {
  return kind === 'invocation'
    ? { kind, state: invocationStats.deserialize(delta.columns.text(record, kind)) }
    : { kind, state: usageCounts.deserialize(delta.columns.text(record, kind)) };
}

/** Everything folded for one project since the last {@link Fold.take}. */
export interface ProjectDelta {
  /** The bucket states folded, each address once, in the order the fold met them. */
  readonly states: readonly DeltaState[];
  /** Additions to the project's ring buffer of recent logs. */
  readonly logs: WrittenMember[];
  /** Additions to the project's ring buffers of Logflare sources, by source. */
  readonly sources: Map<LogflareSource, WrittenMember[]>;
  /** Request hosts with the newest event time seen (µs), for the host registry. */
  readonly hosts: Map<string, number>;
  /** Keys newly admitted by the project's bounds (see `admission.ts`), by the set that keeps them. */
  readonly admitted: Map<string, AdmittedWrite>;
  /** The newest event time folded (µs): no bucket of the delta starts after it. */
  readonly newestUs: number;
}

/** Members to add to one set of admitted keys, and when the set may be forgotten. */
export interface AdmittedWrite {
  readonly members: string[];
  readonly expireAtMs: number;
}

/** Everything folded since the last {@link Fold.take}, by project. */
export interface RollupDelta {
  readonly projects: Map<string, ProjectDelta>;
  /** Number of events folded. */
  readonly events: number;
  /** The states' accumulators: the delta's own, handed over with it. */
  readonly columns: StateColumns;
}

/**
 * Every (project, host) pair of `delta` with its newest event time: what a flush registers, and
 * what a process that folded it may add to its own view of the registry without reading it.
 *
 * @example
 * ```ts
 * hostSightings(fold.take()); // [{ project: 'abc', host: 'abc.supabase.co', newestUs: 1795… }]
 * ```
 */
export function hostSightings(delta: RollupDelta): RegisteredHost[] {
  const sightings: RegisteredHost[] = [];
  for (const [project, { hosts }] of delta.projects) {
    for (const [host, newestUs] of hosts) sightings.push({ project, host, newestUs });
  }
  return sightings;
}
