/**
 * The streaming fold: every valid event, as it arrives, is added to the pending delta of each
 * bucket it falls in (invocation stats of the project and of the function at every grain, API
 * counts of the request host at every grain, the project's recent-log ring buffer, the host
 * registry). The delta is then merged into the store by a {@link ./partition-writer.ts}.
 *
 * @example
 * ```ts
 * const fold = new Fold();
 * fold.add(event, 'logs.edge/3@1042', Date.now() * 1000);
 * const delta = fold.take();
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
  hostMember,
  hostScope,
  INVOCATION_HORIZON_US,
  invocationKey,
  projectPrefix,
  recentLogsKey,
  USAGE_HORIZON_US,
  usageKey,
} from './keys.ts';
import { type InvocationStats, invocationStats } from './invocation-stats.ts';
import { recentLogMember } from './recent-logs.ts';
import { familiesOf } from '../endpoints/families.ts';
import { type UsageCounts, usageCounts } from './usage-counts.ts';

/** A pending bucket state, tagged with its aggregate so the writer knows how to merge it. */
export type PendingState =
  | { readonly kind: 'invocation'; state: InvocationStats; readonly expireAtMs: number }
  | { readonly kind: 'usage'; state: UsageCounts; readonly expireAtMs: number };

/** Everything folded since the last {@link Fold.take}. */
export interface RollupDelta {
  readonly states: Map<string, PendingState>;
  /** Ring-buffer additions per recent-logs key. */
  readonly logs: Map<string, ScoredMember[]>;
  /** Host-registry members with the newest event time seen (µs). */
  readonly hosts: Map<string, number>;
  /** Number of events folded. */
  events: number;
}

function emptyDelta(): RollupDelta {
  return { states: new Map(), logs: new Map(), hosts: new Map(), events: 0 };
}

/** Accumulates the delta of a stream of valid events. */
export class Fold {
  #delta: RollupDelta = emptyDelta();

  /** Number of events folded since the last {@link take}. */
  get size(): number {
    return this.#delta.events;
  }

  /**
   * Folds one event. `position` names where it came from (unique per event, later positions
   * sorting after earlier ones within a stream); `nowUs` decides which grains are still read.
   */
  add(event: LogEvent, position: string, nowUs: number): void {
    if (event.source === 'edge') this.#addEdge(event, position, nowUs);
    else this.#addFunctionEdge(event, nowUs);
    this.#delta.events += 1;
  }

  /** Hands over the accumulated delta and starts a new one. */
  take(): RollupDelta {
    const delta = this.#delta;
    this.#delta = emptyDelta();
    return delta;
  }

  #addFunctionEdge(event: FunctionEdgeEvent, nowUs: number): void {
    const nowMs = nowUs / 1000;
    // parse guarantees every entry names the event's project.
    const prefix = projectPrefix(event.project);
    const all = functionScope(null);
    const scopes = event.invocations.map((invocation) =>
      invocation.functionId === null ? null : functionScope(invocation.functionId)
    );
    for (const grain of GRAINS) {
      const bucket = truncate(event.timestampUs, grain);
      const expireAtMs = bucketExpiryMs(bucket, grain, INVOCATION_HORIZON_US[grain]);
      if (expireAtMs <= nowMs) continue;
      event.invocations.forEach((invocation, i) => {
        this.#invocation(invocationKey(prefix, all, grain, bucket), expireAtMs, invocation);
        const scope = scopes[i];
        if (scope !== null && scope !== undefined) {
          this.#invocation(invocationKey(prefix, scope, grain, bucket), expireAtMs, invocation);
        }
      });
    }
  }

  #invocation(
    key: string,
    expireAtMs: number,
    invocation: FunctionEdgeEvent['invocations'][number],
  ) {
    let pending = this.#delta.states.get(key);
    if (pending === undefined) {
      pending = { kind: 'invocation', state: invocationStats.empty(), expireAtMs };
      this.#delta.states.set(key, pending);
    }
    if (pending.kind === 'invocation') {
      pending.state = invocationStats.add(pending.state, invocation);
    }
  }

  #addEdge(event: EdgeEvent, position: string, nowUs: number): void {
    const { project } = event;
    const logsKey = recentLogsKey(project);
    let logs = this.#delta.logs.get(logsKey);
    if (logs === undefined) {
      logs = [];
      this.#delta.logs.set(logsKey, logs);
    }
    logs.push(recentLogMember(event, position));

    const nowMs = nowUs / 1000;
    const prefix = projectPrefix(project);
    for (const request of event.requests) {
      if (request.host === null) continue;
      const host = hostScope(request.host);
      const member = hostMember(project, request.host);
      const seen = this.#delta.hosts.get(member);
      if (seen === undefined || seen < event.timestampUs) {
        this.#delta.hosts.set(member, event.timestampUs);
      }
      const families = familiesOf(request.path);
      for (const grain of GRAINS) {
        const bucket = truncate(event.timestampUs, grain);
        const expireAtMs = bucketExpiryMs(bucket, grain, USAGE_HORIZON_US[grain]);
        if (expireAtMs <= nowMs) continue;
        const key = usageKey(prefix, host, grain, bucket);
        let pending = this.#delta.states.get(key);
        if (pending === undefined) {
          pending = { kind: 'usage', state: usageCounts.empty(), expireAtMs };
          this.#delta.states.set(key, pending);
        }
        if (pending.kind === 'usage') pending.state = usageCounts.add(pending.state, families);
      }
    }
  }
}
