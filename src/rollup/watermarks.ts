/**
 * A project's watermark of a stream (the next offset the project holds from it): where it is kept
 * and how long it lives after the stream's last commit of the project, for a replayed stream (a
 * Kafka partition) and for one never replayed (HTTP ingest). The writer's commits follow it (see
 * {@link ./partition-writer.ts}), and so do the sets of admitted keys of a stream never replayed
 * (see {@link ./stream-admission.ts}).
 *
 * @module
 */
import { MAX_EVENT_AGE_US } from '../events/limits.ts';
import { DAY_US } from '../time/civil.ts';
import { EXPIRY_SLACK_US, streamWatermarkKey, watermarkKey } from './keys.ts';

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

/** How long a project's watermark of a stream lives after its last commit of it (µs). */
export function watermarkLifeUs(replayed: boolean): number {
  return replayed ? WATERMARK_LIFE_US : DIRECT_WATERMARK_LIFE_US;
}

/**
 * Where `project`'s watermark of `stream` is kept: in the project's watermark hash for a replayed
 * stream, in a key of its own for one never replayed (it expires alone).
 */
export function watermarkKeyOf(project: string, stream: string, replayed: boolean): string {
  return replayed ? watermarkKey(project) : streamWatermarkKey(project, stream);
}
