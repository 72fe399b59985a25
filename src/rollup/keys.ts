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
import { type Grain, GRAIN_US } from '../time/grain.ts';

/** Hash of every stream's next offset (`topic/partition` -> offset). */
export const OFFSETS_KEY = 'rollup:offsets';

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
 * `minutely` and `hourly` windows; minutes back to the partial first hour of `daily`.
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

function tag(project: string): string {
  return `rollup:{${encodeURIComponent(project)}}`;
}

/** Unix milliseconds at which a bucket key may be forgotten. */
export function bucketExpiryMs(bucketUs: number, grain: Grain, horizonUs: number): number {
  return Math.floor((bucketUs + GRAIN_US[grain] + horizonUs + EXPIRY_SLACK_US) / 1000);
}

/** Key of one invocation-stats bucket; `functionId` null means all functions of the project. */
export function invocationKey(
  project: string,
  functionId: string | null,
  grain: Grain,
  bucketUs: number,
): string {
  const scope = functionId === null ? '*' : `f${encodeURIComponent(functionId)}`;
  return `${tag(project)}:inv:${scope}:${GRAIN_CODE[grain]}:${bucketUs / 1_000_000}`;
}

/** Key of one API-counts bucket of a request host, written by the project the event belongs to. */
export function usageKey(project: string, host: string, grain: Grain, bucketUs: number): string {
  return `${tag(project)}:use:${encodeURIComponent(host)}:${GRAIN_CODE[grain]}:${
    bucketUs / 1_000_000
  }`;
}

/** Key of a project's ring buffer of recent edge log entries. */
export function recentLogsKey(project: string): string {
  return `${tag(project)}:logs`;
}

/** A (project, host) pair as a member of {@link HOSTS_KEY}. */
export function hostMember(project: string, host: string): string {
  return JSON.stringify([project, host]);
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
