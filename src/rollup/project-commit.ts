/**
 * Committing, the writer's last step of a flush: the host registry (a maximum, outside the
 * commits), the ring buffers of a replayed stream (outside the commits too: a replay writes the
 * same members again), then one atomic commit per project, fenced by the project's watermark of
 * the stream and the stream's resume offset, with the project's parts, admitted keys and (for a
 * stream never replayed) ring-buffer entries. A commit the store refuses is turned into the
 * rewind it calls for and an {@link OffsetConflictError}. See {@link ./partition-writer.ts} for
 * why each write goes where it does.
 *
 * @example
 * ```ts
 * const commits = new ProjectCommits({ store, stream, resume, cache, ledger, recentLogsCapacity });
 * await commits.registerHosts(delta, nowUs);
 * await commits.commit(delta, writes, nextOffset, nowUs); // throws OffsetConflictError if refused
 * ```
 *
 * @module
 */
import type { RollupStore, SortedSetWrite, WrittenMember } from '../store/port.ts';
import type { CommitLedger } from './commit-ledger.ts';
import { hostSightings, type ProjectDelta, type RollupDelta } from './fold-delta.ts';
import {
  changesChannel,
  EXPIRY_SLACK_US,
  HOST_HORIZON_US,
  hostMember,
  HOSTS_KEY,
  recentLogsKey,
  sourceLogsKey,
} from './keys.ts';
import { earlierRewind, OffsetConflictError, type RewindPoint } from './offset-conflict.ts';
import { NO_WRITES, type ProjectWrites } from './part-merge.ts';
import type { ProjectCache } from './project-cache.ts';
import { RECENT_LOGS_MAX_AGE_US } from './recent-logs.ts';
import type { ResumeOffset } from './resume-offset.ts';

/** Options of {@link ProjectCommits}. */
export interface ProjectCommitsOptions {
  readonly store: RollupStore;
  readonly stream: string;
  /** The stream's resume offset: each commit is fenced by it. */
  readonly resume: ResumeOffset;
  /** The writer's cache: a commit that lands moves the project's watermark there. */
  readonly cache: ProjectCache;
  /** What the writer committed and registered, kept when the cache is dropped. */
  readonly ledger: CommitLedger;
  /** Entries kept per project ring buffer. */
  readonly recentLogsCapacity: number;
}

/** Commits one stream's merged deltas, project by project. */
export class ProjectCommits {
  readonly #store: RollupStore;
  readonly #stream: string;
  readonly #resume: ResumeOffset;
  readonly #cache: ProjectCache;
  readonly #ledger: CommitLedger;
  readonly #recentLogsCapacity: number;

  constructor(options: ProjectCommitsOptions) {
    this.#store = options.store;
    this.#stream = options.stream;
    this.#resume = options.resume;
    this.#cache = options.cache;
    this.#ledger = options.ledger;
    this.#recentLogsCapacity = options.recentLogsCapacity;
  }

  /**
   * Commits each project of `delta` with its `writes`, at `nextOffset`; throws
   * {@link OffsetConflictError} when the store refused any (after noting where the stream must
   * resume), once every commit has answered.
   */
  async commit(
    delta: RollupDelta,
    writes: ReadonlyMap<string, ProjectWrites>,
    nextOffset: number,
    nowUs: number,
  ): Promise<void> {
    const refused: { rewindTo?: number | null; reason: string }[] = [];
    const resumeMovedTo: (number | null)[] = [];
    await Promise.all(
      [...delta.projects].map(async ([project, projectDelta]) => {
        const known = this.#cache.known(project);
        const expected = known.offset;
        const result = await this.#commitProject(
          project,
          projectDelta,
          writes.get(project) ?? NO_WRITES,
          nextOffset,
          nowUs,
        );
        if (result.outcome === 'applied') return;
        if (result.outcome === 'resume-moved') resumeMovedTo.push(result.resumeStored);
        else if (result.outcome === 'part-found') {
          // The resume offset has not moved: this flush's events are folded again, and the
          // project's parts read (the store marked its reach forgotten).
          refused.push({
            reason: `project ${project} has a part of it in ${result.partFound}, beyond ` +
              'its reach (a watermark that expired before its parts, or was evicted)',
          });
        } else {
          await this.#ledger.refused(project, result.stored);
          refused.push({
            rewindTo: result.stored,
            reason: `project ${project} holds offset ${result.stored ?? 'none'} from it, ` +
              `not ${expected ?? 'none'}`,
          });
        }
      }),
    );
    let rewind: RewindPoint | undefined;
    for (const { rewindTo } of refused) {
      if (rewindTo !== undefined) this.#resume.rewindTo(rewindTo);
      rewind = earlierRewind(rewind, rewindTo);
    }
    if (resumeMovedTo.length > 0) this.#resume.moved(resumeMovedTo[0] ?? null);
    const first = refused[0];
    if (first !== undefined) throw new OffsetConflictError(this.#stream, first.reason, rewind);
  }

  /** Registers every (project, host) of the delta, a maximum: idempotent, so outside the commits. */
  async registerHosts(delta: RollupDelta, nowUs: number): Promise<void> {
    const members = hostSightings(delta).map(({ project, host, newestUs }) => ({
      member: hostMember(project, host),
      score: newestUs,
    }));
    if (members.length === 0) return;
    this.#ledger.registered(members);
    await this.#store.updateSortedSet({
      key: HOSTS_KEY,
      members,
      mode: 'max',
      keepHighest: null,
      dropBelow: nowUs - HOST_HORIZON_US,
      expireAtMs: null,
    });
  }

  /**
   * Adds every project's new entries to its ring buffer, outside the commits, on a stream that
   * is replayed: the replay writes the same entries again (see `partition-writer.ts`). A stream that
   * is never replayed commits them with each project instead ({@link #commitProject}).
   */
  async addRecentLogs(delta: RollupDelta, nowUs: number): Promise<void> {
    if (this.#resume.kind.ringEntriesInCommit) return;
    const writes: Promise<void>[] = [];
    for (const [project, projectDelta] of delta.projects) {
      for (const write of this.#ringWrites(project, projectDelta, nowUs)) {
        writes.push(this.#store.updateSortedSet(write));
      }
    }
    await Promise.all(writes);
  }

  /**
   * The writes of a project's new ring-buffer entries, with their trims: its edge logs and each
   * Logflare source's, each buffer keeping the newest `recentLogsCapacity` entries.
   */
  #ringWrites(project: string, delta: ProjectDelta, nowUs: number): SortedSetWrite[] {
    const writes: SortedSetWrite[] = [];
    if (delta.logs.length > 0) {
      writes.push(this.#ringWrite(recentLogsKey(project), delta.logs, nowUs));
    }
    delta.sources.forEach((rows, source) => {
      writes.push(this.#ringWrite(sourceLogsKey(project, source), rows, nowUs));
    });
    return writes;
  }

  /** The write of `entries`, new entries of the ring buffer at `key`, with its trims. */
  #ringWrite(key: string, entries: readonly WrittenMember[], nowUs: number): SortedSetWrite {
    return {
      key,
      members: entries,
      mode: 'add',
      keepHighest: this.#recentLogsCapacity,
      dropBelow: nowUs - RECENT_LOGS_MAX_AGE_US,
      expireAtMs: Math.floor((nowUs + RECENT_LOGS_MAX_AGE_US + EXPIRY_SLACK_US) / 1000),
    };
  }

  async #commitProject(
    project: string,
    delta: ProjectDelta,
    { parts, newParts }: ProjectWrites,
    nextOffset: number,
    nowUs: number,
  ) {
    const known = this.#cache.known(project);
    const sortedSets: SortedSetWrite[] = [];
    for (const [key, { members, expireAtMs }] of delta.admitted) {
      sortedSets.push({
        key,
        members: members.map((member) => ({ member, score: 0 })),
        mode: 'add',
        keepHighest: null,
        dropBelow: null,
        expireAtMs,
      });
    }
    // No replay would write them again if this commit failed after they were written alone.
    if (this.#resume.kind.ringEntriesInCommit) {
      sortedSets.push(...this.#ringWrites(project, delta, nowUs));
    }
    const reachUs = Math.max(known.reachUs, delta.newestUs);
    const result = await this.#store.commitProject({
      stream: this.#stream,
      ...this.#resume.fence(),
      watermark: {
        key: this.#resume.kind.watermarkKey(project, this.#stream),
        expected: known.offset,
        next: nextOffset,
        expireAtMs: Math.floor((nowUs + this.#resume.kind.watermarkLifeUs) / 1000),
        ...(Number.isFinite(reachUs) ? { reachUs } : {}),
      },
      parts,
      newParts,
      sortedSets,
      changes: changesChannel(project),
    });
    if (result.outcome === 'applied') {
      this.#ledger.committed(project, nextOffset, nowUs);
      known.offset = nextOffset;
      known.reachUs = reachUs;
      known.seenAtUs = nowUs;
      this.#cache.committed(project, known);
    }
    return result;
  }
}
