/**
 * What one stream's writer has written, remembered apart from its caches, so that a store that
 * lost acknowledged writes is noticed even after the caches were dropped.
 *
 * A Redis Cluster keeps a project's keys on one master and a stream's resume offset and the host
 * registry on others (see `keys.ts`). When a master fails over to a replica that had not copied
 * its last writes, those keys go back and the others do not: a project's watermark (with its
 * parts, admitted keys and, written just before on the same master, its ring-buffer entries)
 * may fall below what the writer committed while the stream's resume offset, on a master that
 * kept everything, says the project is past it. A writer that still knew the project found it
 * at its next commit or in {@link PartitionWriter.verify}; one whose flush failed meanwhile (and
 * during a failover flushes fail: the master is away, the cluster down) dropped its caches and
 * resumed from the resume offset, and the lost events were never folded again.
 *
 * The ledger keeps, per project, the last watermark the writer committed (until the watermark
 * itself would have expired), and per (project, host) the newest time it registered, bounded
 * alike, least recently written first out. {@link CommitLedger.lost} compares the watermarks
 * with the store's (a sample, or all of them when the writer reopens); the sightings are
 * registered again ({@link CommitLedger.registerAgain}), a maximum that changes nothing where
 * the registry kept them.
 *
 * A loss found lowers the stream's stored resume offset to the project's stored watermark
 * before it is answered, and only then does the entry take the stored value: a writer dropped
 * before it reopens (a rebalance, a stop) leaves the next owner resuming where the project needs.
 * A lowering that fails leaves the entry as it was, so the next check finds the loss again.
 *
 * @module
 */
import type { RollupStore, ScoredMember } from '../store/port.ts';
import { EXPIRY_SLACK_US, HOST_HORIZON_US, HOSTS_KEY, resumeKey } from './keys.ts';

/** A project whose stored watermark is below what the writer committed. */
export interface Loss {
  readonly project: string;
  /** The stored watermark (null: none). */
  readonly stored: number | null;
  readonly committed: number;
}

/** Options of {@link CommitLedger}. */
export interface CommitLedgerOptions {
  readonly store: RollupStore;
  readonly stream: string;
  /** Where a project's watermark of the stream is kept. */
  readonly watermarkKey: (project: string) => string;
  /** Projects, and (project, host) pairs, remembered; the least recently written go first. */
  readonly limit: number;
  /** How long a watermark lives after its last commit (µs): older entries are forgotten. */
  readonly watermarkLifeUs: number;
  /**
   * The stream's earliest offset, where a project that holds nothing resumes; undefined for a
   * stream that is never replayed (it keeps no resume offset to lower on a loss).
   */
  readonly earliestOffset: (() => Promise<number>) | undefined;
}

interface Committed {
  offset: number;
  /** When this writer committed it; null when only read (its commit time is unknown). */
  atUs: number | null;
}

/** How many host sightings one registration call sends. */
const REGISTER_CHUNK = 1_000;

/** A loss found, with the entry it was found against. */
interface FoundLoss extends Loss {
  readonly entry: Committed;
}

/** Why the stream is folded again from a project's stored watermark. */
export function lossReason({ project, stored, committed }: Loss): string {
  return `project ${project} holds offset ${stored ?? 'none'} from it, not ${committed}`;
}

/** One stream's record of its commits and host sightings. */
export class CommitLedger {
  readonly #options: CommitLedgerOptions;
  readonly #committed = new Map<string, Committed>();
  readonly #sightings = new Map<string, number>();
  #committedCursor: MapIterator<[string, Committed]> = this.#committed.entries();
  #sightingsCursor: MapIterator<[string, number]> = this.#sightings.entries();

  constructor(options: CommitLedgerOptions) {
    this.#options = options;
  }

  /** How many projects and sightings are remembered. */
  get size(): { readonly projects: number; readonly sightings: number } {
    return { projects: this.#committed.size, sightings: this.#sightings.size };
  }

  /** `project` now holds `offset` from the stream, committed by this writer at `atUs`. */
  committed(project: string, offset: number, atUs: number | null): void {
    this.#committed.delete(project);
    this.#committed.set(project, { offset, atUs });
    trim(this.#committed, this.#options.limit);
  }

  /**
   * The writer read `stored` as the watermarks of `projects`: each remembered when nothing is
   * (committed at a time unknown), and answered as a loss when below what was committed, once
   * the stored resume offset is lowered to it (see the module's doc).
   */
  async loaded(
    projects: readonly string[],
    stored: readonly (number | null)[],
    nowUs: number,
  ): Promise<Loss[]> {
    const found = projects.flatMap((project, i) => {
      const offset = stored[i] ?? null;
      const entry = this.#committed.get(project);
      if (entry === undefined) {
        if (offset !== null) this.committed(project, offset, null);
        return [];
      }
      const loss = this.#compare(project, entry, offset, nowUs);
      return loss === null ? [] : [loss];
    });
    return await this.#secure(found);
  }

  /**
   * A commit of `project` was refused: the store holds `stored`, from where the writer folds
   * again (it has rewound). Below what was committed, a loss: the stored resume offset is lowered
   * to it first (see the module's doc); then remembered as such, so that no later read reports it
   * again.
   */
  async refused(project: string, stored: number | null): Promise<void> {
    const entry = this.#committed.get(project);
    if (entry === undefined) return;
    if (stored !== null && stored >= entry.offset) entry.offset = stored;
    else await this.#secure([{ project, stored, committed: entry.offset, entry }]);
  }

  /**
   * A loss when `stored` is below `entry` (the entry follows the store only once the loss is
   * secured); otherwise the entry follows the store. A watermark that may have expired is no
   * loss: none is stored, and this writer did not commit it within a life (less the slack of
   * clocks), or only read it (committed when, by whom, is unknown).
   */
  #compare(project: string, entry: Committed, stored: number | null, nowUs: number) {
    const mayHaveExpired = entry.atUs === null ||
      entry.atUs < nowUs - this.#options.watermarkLifeUs + EXPIRY_SLACK_US;
    if (stored === null && mayHaveExpired) {
      this.#committed.delete(project);
      return null;
    }
    if (stored !== null && stored >= entry.offset) {
      entry.offset = stored;
      return null;
    }
    return { project, stored, committed: entry.offset, entry };
  }

  /**
   * Lowers the stored resume offset to the earliest stored watermark of `found` (when later),
   * then lets their entries follow the store, unless a commit moved one meanwhile or the resume
   * offset moved (the lowering then fails and the losses are found again at the next check).
   */
  async #secure(found: readonly FoundLoss[]): Promise<Loss[]> {
    const first = found[0];
    if (first === undefined) return [];
    const earliest = this.#options.earliestOffset;
    let lowered = true;
    if (earliest !== undefined) {
      const wanted = found.reduce<number | null>(
        (to, { stored }) => to === null || stored === null ? null : Math.min(to, stored),
        first.stored,
      );
      const to = wanted ?? (await earliest());
      const key = resumeKey(this.#options.stream);
      const current = await this.#options.store.readOffset(key);
      lowered = current === null || to >= current ||
        (await this.#options.store.advanceOffset(key, current, to));
    }
    return found.map(({ project, stored, committed, entry }) => {
      if (lowered && this.#committed.get(project) === entry && entry.offset === committed) {
        if (stored === null) this.#committed.delete(project);
        else entry.offset = stored;
      }
      return { project, stored, committed };
    });
  }

  /** The registry now holds these (project, host) members at least at their scores. */
  registered(members: readonly ScoredMember[]): void {
    for (const { member, score } of members) {
      const known = this.#sightings.get(member) ?? Number.NEGATIVE_INFINITY;
      this.#sightings.delete(member);
      this.#sightings.set(member, Math.max(known, score));
    }
    trim(this.#sightings, this.#options.limit);
  }

  /**
   * Reads the stored watermarks of `sample` remembered projects (a different slice each call;
   * every one when `sample` is absent) and answers those below what was committed, once the
   * stored resume offset is lowered to them: a loss is then remembered at its stored value (the
   * stream is folded again from there), as is a watermark beyond it (another writer's commits).
   */
  async lost(nowUs: number, sample?: number): Promise<Loss[]> {
    const picked = sample === undefined
      ? [...this.#committed]
      : take(this.#committed, sample, () => this.#committedCursor, (cursor) => {
        this.#committedCursor = cursor;
      }, () => this.#committed.entries());
    const live = picked;
    if (live.length === 0) return [];
    const expected = live.map(([, entry]) => entry.offset);
    const stored = await this.#options.store.readWatermarks(
      live.map(([project]) => this.#options.watermarkKey(project)),
      this.#options.stream,
    );
    const found = live.flatMap(([project, entry], i) => {
      // A commit landed while the read was under way: nothing to compare.
      if (this.#committed.get(project) !== entry || entry.offset !== expected[i]) return [];
      const loss = this.#compare(project, entry, stored[i] ?? null, nowUs);
      return loss === null ? [] : [loss];
    });
    return await this.#secure(found);
  }

  /**
   * Registers again the newest sighting of `sample` remembered (project, host) pairs (a
   * different slice each call; all when absent): the registry lives on one master, which may
   * have failed over without the last of them.
   */
  async registerAgain(nowUs: number, sample?: number): Promise<void> {
    const picked = sample === undefined
      ? [...this.#sightings]
      : take(this.#sightings, sample, () => this.#sightingsCursor, (cursor) => {
        this.#sightingsCursor = cursor;
      }, () => this.#sightings.entries());
    const horizonUs = nowUs - HOST_HORIZON_US;
    const members = picked.flatMap(([member, score]) => {
      if (score >= horizonUs) return [{ member, score }];
      this.#sightings.delete(member);
      return [];
    });
    // In bounded calls: a request of every sighting at once may be refused (Upstash REST).
    for (let i = 0; i < members.length; i += REGISTER_CHUNK) {
      await this.#options.store.updateSortedSet({
        key: HOSTS_KEY,
        members: members.slice(i, i + REGISTER_CHUNK),
        mode: 'max',
        keepHighest: null,
        dropBelow: horizonUs,
        expireAtMs: null,
      });
    }
  }
}

/** Drops the oldest entries of `map` beyond `limit`. */
function trim<V>(map: Map<string, V>, limit: number): void {
  for (const key of map.keys()) {
    if (map.size <= limit) return;
    map.delete(key);
  }
}

/** Up to `count` entries of `map`, going on from the cursor (wrapping around once). */
function take<V>(
  map: Map<string, V>,
  count: number,
  cursor: () => MapIterator<[string, V]>,
  setCursor: (cursor: MapIterator<[string, V]>) => void,
  restart: () => MapIterator<[string, V]>,
): [string, V][] {
  const picked: [string, V][] = [];
  for (let i = 0; i < Math.min(count, map.size); i++) {
    let next = cursor().next();
    if (next.done === true) {
      setCursor(restart());
      next = cursor().next();
      if (next.done === true) break;
    }
    picked.push(next.value);
  }
  return picked;
}
