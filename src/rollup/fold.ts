/**
 * The streaming fold: every valid event, as it arrives, is added to the pending delta of each
 * bucket it falls in (invocation stats of the project and of the function at every grain, API
 * counts of the request host at every grain, the project's recent-log ring buffer, the host
 * registry). The delta is then merged into the store by a {@link ./partition-writer.ts}.
 *
 * It runs on every event, so per event it does as little as it can, and of what it makes only
 * the event's ring-buffer member outlives the event (a project's, a function's or a host's entry,
 * and a bucket, are made once per flush): a name (project, function, host) is looked up once per
 * event, invocation or request and stands for a small integer, its scope; the buckets of an event
 * time are worked out once per second of event time and shared by every event in that second; a
 * state is a record of {@link StateColumns}, found by (scope, bucket) in an open-addressing table
 * ({@link BucketRecords}) and folded into typed arrays. Key strings are made once per state at
 * {@link Fold.take}, which hands the columns over with the delta and starts new ones.
 *
 * @example
 * ```ts
 * const fold = new Fold('logs.edge/3');
 * fold.add(event, 1042, Date.now() * 1000); // the event at offset 1042 of the stream
 * const delta = fold.take(); // by project: bucket states, ring-buffer entries, hosts
 * ```
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
} from '../events/types.ts';
import type { LogflareSource } from '../events/logflare-sources.ts';
import type { WrittenMember } from '../store/port.ts';
import { GRAINS, truncate } from '../time/grain.ts';
import { familyMask } from '../contract/families.ts';
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
} from './keys.ts';
import type { AdmittedWrite, DeltaState, RollupDelta } from './fold-delta.ts';
import { BucketRecords } from './bucket-records.ts';
import { RecentLogMembers } from './recent-logs.ts';
import { StateColumns, type StateKind } from './state-columns.ts';

/** One bucket of one grain, shared by every event of the fold that falls in it. */
interface Bucket {
  /** Its number in the fold, which {@link BucketRecords} finds its records by. */
  readonly id: number;
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

/** Requests of one host folded for one project. */
interface HostFold {
  /** Its scope in the fold's {@link BucketRecords}. */
  readonly scope: number;
  /** Newest event time seen (µs), for the host registry. */
  newestUs: number;
}

/** Everything folded for one project. */
interface ProjectFold {
  /** The scope of the invocation stats of all the project's functions. */
  readonly all: number;
  /** The scope of each function's invocation stats, in the order first met. */
  readonly functions: Map<string, number>;
  readonly hosts: Map<string, HostFold>;
  readonly logs: WrittenMember[];
  readonly sources: Map<LogflareSource, WrittenMember[]>;
  readonly admitted: Map<string, AdmittedWrite>;
  /** The newest event time folded (µs). */
  newestUs: number;
}

/** Accumulates the delta of a stream of valid events. */
export class Fold {
  #projects = new Map<string, ProjectFold>();
  /** Time slots by second of event time (Unix seconds). */
  #slots = new Map<number, TimeSlot>();
  /** Buckets of every grain, per grain, by start (Unix seconds). */
  #buckets: readonly Map<number, Bucket>[] = GRAINS.map(() => new Map());
  /** Every bucket, by {@link Bucket.id}. */
  #bucketList: Bucket[] = [];
  #columns = new StateColumns();
  #records = new BucketRecords(this.#columns);
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
      this.#addEdge(project, event, slot, nowMs);
    } else this.#addFunctionEdge(project, event, slot, nowMs);
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
        all: this.#records.newScope(),
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
  take(): RollupDelta {
    const delta: RollupDelta = {
      projects: new Map(),
      events: this.#events,
      columns: this.#columns,
    };
    // forEach, not for-of: a flush runs this once, too seldom for V8 to optimize away the entry
    // arrays of a for-of over a map.
    this.#projects.forEach((project, name) => {
      const prefix = projectPrefix(name);
      const states: DeltaState[] = [];
      this.#takeScope(states, 'invocation', prefix, functionScope(null), project.all);
      project.functions.forEach((scope, functionId) => {
        this.#takeScope(states, 'invocation', prefix, functionScope(functionId), scope);
      });
      const hosts = new Map<string, number>();
      project.hosts.forEach(({ scope, newestUs }, host) => {
        this.#takeScope(states, 'usage', prefix, hostScope(host), scope);
        hosts.set(host, newestUs);
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
    this.#bucketList = [];
    // As large as this delta's: the next one is likely alike, and need not grow to it.
    this.#columns = new StateColumns(delta.columns.size);
    this.#records = new BucketRecords(this.#columns, delta.columns.size);
    this.#events = 0;
    return delta;
  }

  /** Adds the states of one scope, of the aggregate `kind`, to a delta's states. */
  #takeScope(
    states: DeltaState[],
    kind: StateKind,
    prefix: string,
    scopeName: string,
    scope: number,
  ): void {
    const records = this.#records;
    const keyOf = kind === 'invocation' ? invocationBucketKey : usageBucketKey;
    for (let record = records.first(scope); record >= 0; record = records.next(record)) {
      const bucket = this.#bucketList[records.bucketOf(record)] as Bucket;
      states.push({
        address: partAddress(keyOf(prefix, scopeName, bucket.suffix), bucket.slot),
        kind,
        record,
        startUs: bucket.startUs,
        expireAtMs: kind === 'invocation' ? bucket.invocationExpiryMs : bucket.usageExpiryMs,
      });
    }
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
            id: this.#bucketList.length,
            startUs,
            suffix: bucketSuffix(grain, startUs),
            slot: bucketSlot(grain, startUs),
            invocationExpiryMs: bucketExpiryMs(startUs, grain, INVOCATION_HORIZON_US[grain]),
            usageExpiryMs: bucketExpiryMs(startUs, grain, USAGE_HORIZON_US[grain]),
          };
          byStart.set(startUs / 1_000_000, bucket);
          this.#bucketList.push(bucket);
        }
        return bucket;
      });
      this.#slots.set(second, slot);
    }
    return slot;
  }

  // The per-event methods below loop by index: a for-of over an array allocates its iterator's
  // results wherever V8 has not optimized the loop, and these run once per event.

  #addFunctionEdge(
    project: ProjectFold,
    event: FunctionEdgeEvent,
    slot: TimeSlot,
    nowMs: number,
  ): void {
    const columns = this.#columns;
    const records = this.#records;
    // parse guarantees every entry names the event's project.
    const { invocations } = event;
    for (let i = 0; i < invocations.length; i++) {
      const { functionId, statusCode, executionTimeMs } = invocations[i] as Invocation;
      let scope = -1;
      if (functionId !== null) {
        scope = project.functions.get(functionId) ?? -1;
        if (scope < 0) {
          scope = records.newScope();
          project.functions.set(functionId, scope);
        }
      }
      for (let g = 0; g < slot.length; g++) {
        const bucket = slot[g] as Bucket;
        if (bucket.invocationExpiryMs <= nowMs) continue;
        columns.addInvocation(records.record(project.all, bucket.id), statusCode, executionTimeMs);
        if (scope < 0) continue;
        columns.addInvocation(records.record(scope, bucket.id), statusCode, executionTimeMs);
      }
    }
  }

  #addEdge(project: ProjectFold, event: EdgeEvent, slot: TimeSlot, nowMs: number): void {
    const columns = this.#columns;
    const records = this.#records;
    const { requests } = event;
    for (let i = 0; i < requests.length; i++) {
      const request = requests[i] as EdgeRequest;
      if (request.host === null) continue;
      let host = project.hosts.get(request.host);
      if (host === undefined) {
        host = { scope: records.newScope(), newestUs: event.timestampUs };
        project.hosts.set(request.host, host);
      } else if (host.newestUs < event.timestampUs) {
        host.newestUs = event.timestampUs;
      }
      const families = familyMask(request.path);
      for (let g = 0; g < slot.length; g++) {
        const bucket = slot[g] as Bucket;
        if (bucket.usageExpiryMs <= nowMs) continue;
        columns.addRequest(records.record(host.scope, bucket.id), families);
      }
    }
  }
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
