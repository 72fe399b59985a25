/**
 * What a {@link ./fold.ts} hands a flush: by project, the pending bucket states by where their
 * parts live, the ring-buffer entries, the hosts seen and the keys admitted.
 *
 * @module
 */
import type { LogflareSource } from '../events/logflare-sources.ts';
import type { WrittenMember } from '../store/port.ts';
import type { RegisteredHost } from './keys.ts';
import type { Aggregate } from './aggregate.ts';
import type { InvocationStats } from './invocation-stats.ts';
import type { UsageCounts } from './usage-counts.ts';

/**
 * A pending bucket state with the aggregate that merges it, writes it to the store and reads it
 * back, its bucket's start (µs) and when its key may be forgotten (Unix ms). The writer goes
 * through `aggregate` only, whichever aggregate it is.
 */
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

/** Everything folded for one project since the last {@link Fold.take}. */
export interface ProjectDelta {
  /** Pending bucket states by where their parts live ({@link partAddress}). */
  readonly states: Map<string, PendingState>;
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
