/**
 * Where each rollup lives in the store, and for how long. Every key of one project carries the
 * project in a Redis Cluster hash tag (`{…}`), so one project's keys share a slot.
 *
 * A bucket key lives until no endpoint can read it any more: its end plus the longest span an
 * endpoint reads at that grain (the horizon), plus {@link EXPIRY_SLACK_US} for clocks that
 * disagree a little. An event so late that its bucket would already have expired is not written
 * to that grain (nothing could read it), but still to the coarser grains that are read.
 *
 * @module
 */
import type { PartRef } from '../store/port.ts';
import type { LogflareSource } from '../events/logflare-sources.ts';
import { type Grain, GRAIN_US, truncate } from '../time/grain.ts';

/** Sorted set of every (project, request host) pair, scored by its newest event's time (µs). */
export const HOSTS_KEY = 'rollup:hosts';

/** Extra life of every bucket key beyond its horizon. */
export const EXPIRY_SLACK_US = 2 * 60_000_000;

const HOUR_US = GRAIN_US.hour;
const DAY_US = GRAIN_US.day;

/** What `functions.invocation-stats` reads at each grain: 5min, 1hr, 1day and 7day. */
export const INVOCATION_HORIZON_US: Readonly<Record<Grain, number>> = {
  second: 5 * GRAIN_US.minute,
  minute: HOUR_US,
  hour: DAY_US,
  day: 7 * DAY_US,
};

/**
 * What `usage.api-counts` reads at each grain: seconds for the first, partial minute of the
 * `minutely`, `hourly` and `1hr` windows; minutes back to the partial first hour of `daily` and
 * `7day` (that of `1day`, a day back, lies within).
 */
export const USAGE_HORIZON_US: Readonly<Record<Grain, number>> = {
  second: HOUR_US,
  minute: 7 * DAY_US,
  hour: 7 * DAY_US,
  day: 7 * DAY_US,
};

/** How long the host registry remembers a host after its newest event. */
export const HOST_HORIZON_US = 7 * DAY_US + DAY_US;

const GRAIN_CODE: Readonly<Record<Grain, string>> = {
  second: 's',
  minute: 'm',
  hour: 'h',
  day: 'd',
};

/**
 * The prefix of every key of `project`, with the project as the Redis Cluster hash tag. Key
 * builders take it rather than the project, so the fold encodes a project once per event.
 */
export function projectPrefix(project: string): string {
  return `rollup:{${encodeURIComponent(project)}}`;
}

/** The scope part of an invocation key: all functions (`*`) or one function. */
export function functionScope(functionId: string | null): string {
  return functionId === null ? '*' : `f${encodeURIComponent(functionId)}`;
}

/**
 * Unix milliseconds at which the key of a bucket may be forgotten: the end of what the key
 * holds (a second's key holds its whole minute) plus the horizon and the slack.
 */
export function bucketExpiryMs(bucketUs: number, grain: Grain, horizonUs: number): number {
  const endUs = grain === 'second'
    ? truncate(bucketUs, 'minute') + GRAIN_US.minute
    : bucketUs + GRAIN_US[grain];
  return Math.floor((endUs + horizonUs + EXPIRY_SLACK_US) / 1000);
}

/**
 * The tail of every key of one bucket: its grain and its start in Unix seconds. The fold builds it
 * once per bucket, not once per key. The seconds of a minute share one key, the minute's hash of
 * seconds (`S`), each second in its own slot ({@link bucketSlot}): a `5min` series reads 6 keys,
 * not 301.
 *
 * @example
 * ```ts
 * bucketSuffix('minute', 1_795_256_100_000_000); // 'm:1795256100'
 * bucketSuffix('second', 1_795_256_117_000_000); // 'S:1795256100'
 * ```
 */
export function bucketSuffix(grain: Grain, bucketUs: number): string {
  return grain === 'second'
    ? `S:${truncate(bucketUs, 'minute') / 1_000_000}`
    : `${GRAIN_CODE[grain]}:${bucketUs / 1_000_000}`;
}

/**
 * The slot of a bucket in its key's hash: a second's offset in its minute (`'0'` to `'59'`);
 * undefined for the other grains, whose key holds one bucket.
 *
 * @example
 * ```ts
 * bucketSlot('second', 1_795_256_117_000_000); // '17'
 * ```
 */
export function bucketSlot(grain: Grain, bucketUs: number): string | undefined {
  return grain === 'second'
    ? String((bucketUs - truncate(bucketUs, 'minute')) / 1_000_000)
    : undefined;
}

/**
 * The tail of the key of one second in the layout with a key per second (`s`, before the
 * minute's hash of seconds), which a reader still reads where a minute shows that a writer of an
 * earlier version wrote some of its seconds there (see `src/endpoints/read/seconds.ts`).
 */
export function perSecondKeySuffix(bucketUs: number): string {
  return `${GRAIN_CODE.second}:${bucketUs / 1_000_000}`;
}

/**
 * One text for where a part lives ({@link PartRef}): the key, or the key, `#` and the slot. The
 * fold and the writer key their maps by it; `#` never occurs in a key (every name in one is
 * URI-encoded).
 */
export function partAddress(key: string, slot: string | undefined): string {
  return slot === undefined ? key : `${key}#${slot}`;
}

/** The key and slot of a {@link partAddress}. */
export function partRef(address: string): PartRef {
  const hash = address.lastIndexOf('#');
  return hash < 0
    ? { key: address }
    : { key: address.slice(0, hash), slot: address.slice(hash + 1) };
}

/** Key of one invocation-stats bucket, from its scope and {@link bucketSuffix}. */
export function invocationBucketKey(prefix: string, scope: string, suffix: string): string {
  return `${prefix}:inv:${scope}:${suffix}`;
}

/** Key of one API-counts bucket, from its host scope and {@link bucketSuffix}. */
export function usageBucketKey(prefix: string, host: string, suffix: string): string {
  return `${prefix}:use:${host}:${suffix}`;
}

/**
 * Key of one invocation-stats bucket, from {@link projectPrefix} and {@link functionScope}; of a
 * second, its minute's hash of seconds, where the second is the slot {@link bucketSlot}.
 *
 * @example
 * ```ts
 * invocationKey(projectPrefix('abc'), functionScope(null), 'minute', 1_795_256_100_000_000);
 * // 'rollup:{abc}:inv:*:m:1795256100'
 * ```
 */
export function invocationKey(
  prefix: string,
  scope: string,
  grain: Grain,
  bucketUs: number,
): string {
  return invocationBucketKey(prefix, scope, bucketSuffix(grain, bucketUs));
}

/** The host part of a usage key. */
export function hostScope(host: string): string {
  return encodeURIComponent(host);
}

/**
 * Key of one API-counts bucket of a request host ({@link hostScope}), written by the project
 * ({@link projectPrefix}) the event belongs to; of a second, as {@link invocationKey}.
 */
export function usageKey(prefix: string, host: string, grain: Grain, bucketUs: number): string {
  return usageBucketKey(prefix, host, bucketSuffix(grain, bucketUs));
}

/** How long a state moved aside by {@link quarantineKey} is kept for inspection: 7 days. */
export const QUARANTINE_TTL_US = 7 * DAY_US;

/**
 * Where the writer moves a stored state it cannot read before writing a fresh one: beside it
 * (a key of its own per {@link partAddress}), under the same hash tag (the project's Redis
 * Cluster slot), in the same atomic commit.
 *
 * @example
 * ```ts
 * quarantineKey('rollup:{abc}:inv:*:m:1795256100'); // 'rollup:{abc}:inv:*:m:1795256100:unreadable'
 * quarantineKey('rollup:{abc}:inv:*:S:1795256100#17'); // '…:S:1795256100#17:unreadable'
 * ```
 */
export function quarantineKey(address: string): string {
  return `${address}:unreadable`;
}

/**
 * Key of a project's watermarks: a hash of every stream that wrote the project (`topic/partition`,
 * or an API process's ingest stream) to the next offset the project holds from it. It lives
 * in the project's hash slot, so each commit of the project checks and moves it atomically.
 */
export function watermarkKey(project: string): string {
  return `${projectPrefix(project)}:wm`;
}

/**
 * Key of the watermark of one stream that is never replayed (an API process's direct-ingest
 * stream, `ingest/<id>`) in a project: a hash of that one stream, in the project's hash slot. It
 * expires soon after the stream's last commit of the project, so that process starts do not pile
 * up as fields of {@link watermarkKey}, which lives as long as the project is written.
 */
export function streamWatermarkKey(project: string, stream: string): string {
  return `${projectPrefix(project)}:wm:${stream}`;
}

/**
 * Key of a stream's resume offset: where its next owner starts reading (every project below
 * it holds everything the stream had for it). In the stream's own hash slot: no writer of
 * another stream ever touches it.
 */
export function resumeKey(stream: string): string {
  return `rollup:resume:{${stream}}`;
}

/**
 * Hash of every stream's next offset, as the layout before per-project watermarks (version
 * 0.1) kept it: read once, where a stream has no resume offset yet, so an upgrade resumes
 * where the old version stopped instead of folding the retained stream again.
 */
export const LEGACY_OFFSETS_KEY = 'rollup:offsets';

/**
 * The channel a project's commits are signalled on (src/store/changes.ts): in the project's hash
 * slot, so a commit script on a Redis Cluster publishes it from the node that holds the project.
 */
export function changesChannel(project: string): string {
  return `${projectPrefix(project)}:changes`;
}

/** Key of a project's ring buffer of recent edge log entries. */
export function recentLogsKey(project: string): string {
  return `${projectPrefix(project)}:logs`;
}

/** Key of a project's ring buffer of recent entries of one Logflare source (CONTRACT 3.1). */
export function sourceLogsKey(project: string, source: LogflareSource): string {
  return `${projectPrefix(project)}:source:${source}`;
}

/** A (project, host) pair as a member of {@link HOSTS_KEY}. */
export function hostMember(project: string, host: string): string {
  return JSON.stringify([project, host]);
}

/**
 * An entry of the host registry: a (project, host) pair with the time of the newest request folded
 * for it (µs), as a flush registers it and as the read side reads it back.
 */
export interface RegisteredHost {
  readonly project: string;
  readonly host: string;
  readonly newestUs: number;
}

/** The inverse of {@link hostMember}; null for a member this version did not write. */
export function parseHostMember(member: string): { project: string; host: string } | null {
  try {
    const parsed: unknown = JSON.parse(member);
    if (
      Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string'
    ) {
      return { project: parsed[0], host: parsed[1] };
    }
  } catch {
    // Not ours: fall through.
  }
  return null;
}
