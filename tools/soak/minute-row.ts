/**
 * The soak's report: one row a minute (what was published and folded, the lag, freshness, the
 * processes' memory, Redis's, the errors) as a fixed-width line, and the slope of a figure over
 * a range of minutes.
 *
 * @module
 */

/** What one minute of a soak measured; null where a figure could not be read. */
export interface MinuteRow {
  /** 1 for the first minute. */
  readonly minute: number;
  /** Events acknowledged by the broker in the minute, per second. */
  readonly publishedPerSecond: number;
  /** Offsets the consumers stored in the minute, per second. */
  readonly foldedPerSecond: number | null;
  /** Messages published but not yet stored, at the end of the minute. */
  readonly lag: number | null;
  /** Markers' produce-to-visible time through `logs.all`, p99 of those seen in the minute. */
  readonly freshnessP99Ms: number | null;
  /** Endpoint requests answered 200 in the minute, and their latency p99. */
  readonly answered: number;
  readonly answerP99Ms: number | null;
  /** Resident set size of each consumer process now, in MiB (null: not readable). */
  readonly consumerRssMiB: readonly (number | null)[];
  readonly apiRssMiB: number | null;
  /** Redis `used_memory`, in MiB. */
  readonly redisUsedMiB: number | null;
  /** Errors in the minute (any answer but 200 outside a planned outage, error logs, exits). */
  readonly errors: number;
  /** 503 answers and error logs while Redis was restarted on purpose. */
  readonly plannedOutage: number;
  /** What the soak did in the minute (a consumer restarted, Redis restarted). */
  readonly events: readonly string[];
}

/** The header of {@link rowText}'s lines. */
export const ROW_HEADER =
  'min  published/s  folded/s      lag  fresh p99 ms  answers  p99 ms  consumers RSS MiB  API RSS MiB  Redis MiB  errors  outage  events';

/** One row as a fixed-width line under {@link ROW_HEADER}. */
export function rowText(row: MinuteRow): string {
  const figure = (value: number | null, width: number) =>
    (value === null ? '-' : String(Math.round(value))).padStart(width);
  const consumers = row.consumerRssMiB.map((rss) => rss === null ? '-' : String(Math.round(rss)))
    .join('/');
  return [
    figure(row.minute, 3),
    figure(row.publishedPerSecond, 12),
    figure(row.foldedPerSecond, 9),
    figure(row.lag, 8),
    figure(row.freshnessP99Ms, 13),
    figure(row.answered, 8),
    figure(row.answerP99Ms, 7),
    consumers.padStart(18),
    figure(row.apiRssMiB, 12),
    figure(row.redisUsedMiB, 10),
    figure(row.errors, 7),
    figure(row.plannedOutage, 7),
    ` ${row.events.join('; ')}`,
  ].join(' ');
}

/**
 * The least-squares slope of `values` (one a minute) per hour, over the non-null ones; null
 * with fewer than two.
 *
 * @example
 * ```ts
 * slopePerHour([100, 101, 102]); // 60
 * ```
 */
export function slopePerHour(values: readonly (number | null)[]): number | null {
  const points = values.flatMap((value, minute) => value === null ? [] : [[minute, value]]);
  if (points.length < 2) return null;
  const meanX = points.reduce((sum, [x = 0]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y = 0]) => sum + y, 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const [x = 0, y = 0] of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return (covariance / variance) * 60;
}
