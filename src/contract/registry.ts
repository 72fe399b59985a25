/**
 * The three endpoint records of CONTRACT section 4, as data. Ids are defaults; configuration may
 * override them.
 *
 * @module
 */

import { INVOCATION_INTERVALS, USAGE_INTERVALS } from '../time/series.ts';

/** The endpoint names. */
export const ENDPOINT_NAMES = [
  'functions.invocation-stats',
  'logs.all',
  'usage.api-counts',
] as const;

/** An endpoint name. */
export type EndpointName = (typeof ENDPOINT_NAMES)[number];

/** One query-string parameter of an endpoint, for listings and OpenAPI. */
export interface ParameterSpec {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  /** The accepted values, when they form a closed list. */
  readonly values?: readonly string[];
  /**
   * A caller's RE2 pattern, matched against the request hosts (`usage.api-counts`): unless it is
   * a plain ref, compiling and matching it is costly work charged to the caller.
   */
  readonly pattern?: true;
}

/** One endpoint record. */
export interface EndpointRecord {
  readonly name: EndpointName;
  /** Default id (a UUID): `/api/endpoints/query/{id}` reaches the endpoint too. */
  readonly id: string;
  readonly description: string;
  /** At most this many rows in any answer. */
  readonly maxRows: number;
  /** How long the reference system caches a result; 0 = caching disabled. */
  readonly cacheSeconds: number;
  /** How often the reference system re-queries a cached result; 0 = no warming. */
  readonly warmingSeconds: number;
  /** Whether callers may send their own `sql`/`lql`: disabled on all three. */
  readonly sandboxing: false;
  /**
   * Whether answers have every IPv4 and IPv6 address in their strings replaced by `REDACTED`;
   * the request header `LF-ENDPOINT-REDACT-PII: true|false` overrides it. False on all three.
   */
  readonly redactPii: boolean;
  readonly parameters: readonly ParameterSpec[];
}

/** The most rows any endpoint returns. */
export const MAX_ROWS = 1000;

/** The most entries `logs.all` returns (CONTRACT section 5), below the general row cap. */
export const LOGS_ALL_LIMIT = 100;

/**
 * The endpoint records, in `ENDPOINT_NAMES` order.
 *
 * @example
 * ```ts
 * ENDPOINTS.map((record) => record.name);
 * // ['functions.invocation-stats', 'logs.all', 'usage.api-counts']
 * ```
 */
export const ENDPOINTS: readonly EndpointRecord[] = [
  {
    name: 'functions.invocation-stats',
    id: '9da1cf56-a100-4d8b-8b7f-e5ceec992fc3',
    description:
      'Time-bucketed edge-function invocation stats of one project: count, errors, execution time min/max/avg/p95/p99.',
    maxRows: MAX_ROWS,
    cacheSeconds: 900,
    warmingSeconds: 300,
    sandboxing: false,
    redactPii: false,
    parameters: [
      { name: 'project', required: true, description: 'Project ref.' },
      {
        name: 'function_id',
        required: false,
        description: 'Function id; absent or empty means every function of the project.',
      },
      {
        name: 'interval',
        required: false,
        description:
          'Time range and bucket width; any other value, absent or empty included, behaves as 1day.',
        values: Object.keys(INVOCATION_INTERVALS),
      },
    ],
  },
  {
    name: 'logs.all',
    id: 'c0d7853c-5f4f-4a57-9f05-fa926b9511aa',
    description:
      'The newest (at most 100) API gateway log entries of one project, within the retention of its tier.',
    maxRows: MAX_ROWS,
    cacheSeconds: 0,
    warmingSeconds: 0,
    sandboxing: false,
    redactPii: false,
    parameters: [
      { name: 'project', required: true, description: 'Project ref.' },
      {
        name: 'project_tier',
        required: false,
        description:
          'Retention: FREE 1 day, PRO 7 days, PAYG and ENTERPRISE 90 days; any other value, absent or empty included, FREE.',
        values: ['FREE', 'PRO', 'PAYG', 'ENTERPRISE'],
      },
      {
        name: 'iso_timestamp_start',
        required: false,
        description: 'Only entries strictly after this RFC 3339 timestamp (no zone = UTC).',
      },
      {
        name: 'iso_timestamp_end',
        required: false,
        description: 'Only entries at or before this RFC 3339 timestamp (no zone = UTC).',
      },
    ],
  },
  {
    name: 'usage.api-counts',
    id: '966f33a6-47d1-4797-ac34-623aed8fa98c',
    description:
      'Time-bucketed API request counts of one project, split into REST, storage, auth and realtime.',
    maxRows: MAX_ROWS,
    cacheSeconds: 900,
    warmingSeconds: 300,
    sandboxing: false,
    redactPii: false,
    parameters: [
      {
        name: 'project',
        required: true,
        pattern: true,
        description:
          'RE2 regular expression (at most 256 characters and 1,000 compiled instructions) found anywhere in the request host.',
      },
      {
        name: 'interval',
        required: true,
        description:
          "minutely: last 60 minutes by minute; hourly: last hour; daily: last 7 days by day. Today's Supabase Studio's names: 1hr (as minutely), 1day (last 24 hours by hour), 7day (as daily).",
        values: Object.keys(USAGE_INTERVALS),
      },
    ],
  },
];
