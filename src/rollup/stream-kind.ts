/**
 * The two kinds of stream a writer folds, each with its own rules, so that no step of the write
 * path branches on which it is:
 *
 * - a **Kafka partition** is read again after a crash or a rebalance: it keeps a stored resume
 *   offset, its ring-buffer entries may be written beside the commits (a replay writes the same
 *   entries again), its watermarks live as long as the data they cover, and a failover's losses
 *   are looked for before it resumes;
 * - a **direct-ingest stream** (one API process's HTTP ingest) is never read again: nothing stored
 *   says where it resumes, so its entries go inside each project's commit, and its watermarks live
 *   two days (only its own process reads them) and are read again before they may expire.
 *
 * @module
 */
import { MAX_EVENT_AGE_US } from '../events/limits.ts';
import { DAY_US } from '../time/civil.ts';
import { EXPIRY_SLACK_US, streamWatermarkKey, watermarkKey } from './keys.ts';

/** The rules of one kind of stream. */
export interface StreamKind {
  readonly name: 'kafka-partition' | 'direct-ingest';
  /** Whether the stream is read again after a crash, so keeps a stored resume offset. */
  readonly replayed: boolean;
  /** Where `project`'s watermark of `stream` is kept. */
  watermarkKey(project: string, stream: string): string;
  /** How long a project's watermark of the stream lives after its last commit of it (µs). */
  readonly watermarkLifeUs: number;
  /**
   * How old a cached watermark may be before it is read again (µs), so that one that expired is
   * known as expired; null: never (it lives as long as the data).
   */
  readonly watermarkRereadUs: number | null;
  /** Whether ring-buffer entries are committed with each project (else written beside). */
  readonly ringEntriesInCommit: boolean;
  /**
   * Whether a project without a watermark holds nothing of the stream (a watermark outlives the
   * data it covers); else nothing can be concluded of an absent one.
   */
  readonly absentWatermarkMeansNothing: boolean;
  /** When a set of keys admitted on a day may be forgotten, given the day's own expiry (Unix ms). */
  admittedExpiryMs(dayExpiryMs: number, nowUs: number): number;
}

/** How long a project's watermarks live after its last commit: its oldest data's life. */
export const WATERMARK_LIFE_US = MAX_EVENT_AGE_US + EXPIRY_SLACK_US;

/**
 * How long the watermark of a stream that is never replayed (direct ingest) lives after its last
 * commit of the project: only its own process ever reads it, to fence its own commits.
 */
export const DIRECT_WATERMARK_LIFE_US = 2 * DAY_US;

/**
 * How old a cached watermark of a direct stream may be before it is read again: well within its
 * life, so a watermark read from the store is still there when the commit checks it, and one that
 * expired is known as expired (none) rather than cached.
 */
export const DIRECT_WATERMARK_REREAD_US = DIRECT_WATERMARK_LIFE_US / 2;

/** A Kafka partition's rules. */
export const KAFKA_PARTITION: StreamKind = {
  name: 'kafka-partition',
  replayed: true,
  watermarkKey: (project) => watermarkKey(project),
  watermarkLifeUs: WATERMARK_LIFE_US,
  watermarkRereadUs: null,
  ringEntriesInCommit: false,
  absentWatermarkMeansNothing: true,
  admittedExpiryMs: (dayExpiryMs) => dayExpiryMs,
};

/** A direct-ingest stream's rules. */
export const DIRECT_INGEST: StreamKind = {
  name: 'direct-ingest',
  replayed: false,
  // In a key of its own, which expires alone.
  watermarkKey: (project, stream) => streamWatermarkKey(project, stream),
  watermarkLifeUs: DIRECT_WATERMARK_LIFE_US,
  watermarkRereadUs: DIRECT_WATERMARK_REREAD_US,
  // No replay would write them again if a commit failed after they were written alone.
  ringEntriesInCommit: true,
  absentWatermarkMeansNothing: false,
  // No replay decides the same: its sets go with its watermarks, so process starts do not pile up.
  admittedExpiryMs: (dayExpiryMs, nowUs) =>
    Math.min(dayExpiryMs, Math.floor((nowUs + DIRECT_WATERMARK_LIFE_US) / 1000)),
};
