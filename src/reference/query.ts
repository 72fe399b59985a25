/**
 * The reference evaluator's own reading of the three endpoints' parameters, from the tables of
 * CONTRACT sections 4 and 5 and the limits docs/API.md states. It shares no code with
 * `src/contract/params/`, which it checks: a parser bug there shows as a difference from here.
 *
 * @module
 */

import { RE2JS, RE2JSException } from 're2js';
import { DAY_US, HOUR_US, MINUTE_US, parameterInstant, SECOND_US } from './time.ts';

/** Where parameters come from: a query string, or a plain record of strings. */
export type QuerySource = URLSearchParams | Readonly<Record<string, string | undefined>>;

/** Why the parameters were refused: the error code of CONTRACT section 4 and the parameter at fault. */
export interface QueryRefusal {
  readonly code: 'missing_parameter' | 'invalid_parameter';
  readonly parameter: string;
}

/** Parameters read, or why not. */
export type QueryResult<T> =
  | { readonly ok: true; readonly query: T }
  | { readonly ok: false; readonly error: QueryRefusal };

/** CONTRACT section 5's table of `functions.invocation-stats` intervals: span and grain. */
export const INVOCATION_INTERVALS = {
  '5min': { spanUs: 5 * MINUTE_US, grainUs: SECOND_US },
  '15min': { spanUs: 15 * MINUTE_US, grainUs: MINUTE_US },
  '1hr': { spanUs: HOUR_US, grainUs: MINUTE_US },
  '1day': { spanUs: DAY_US, grainUs: HOUR_US },
  '7day': { spanUs: 7 * DAY_US, grainUs: DAY_US },
} as const;

/**
 * CONTRACT section 5's `usage.api-counts` intervals: window, bucket grain, and the precision the window
 * start is rounded down to (the documented deviation). The last three are the names today's
 * Supabase Studio sends: the last hour by minute, the last 24 hours by hour, the last 7 days by
 * day.
 */
export const USAGE_INTERVALS = {
  minutely: { windowUs: HOUR_US, grainUs: MINUTE_US, precisionUs: SECOND_US },
  hourly: { windowUs: HOUR_US, grainUs: HOUR_US, precisionUs: SECOND_US },
  daily: { windowUs: 7 * DAY_US, grainUs: DAY_US, precisionUs: MINUTE_US },
  '1hr': { windowUs: HOUR_US, grainUs: MINUTE_US, precisionUs: SECOND_US },
  '1day': { windowUs: DAY_US, grainUs: HOUR_US, precisionUs: MINUTE_US },
  '7day': { windowUs: 7 * DAY_US, grainUs: DAY_US, precisionUs: MINUTE_US },
} as const;

/** CONTRACT section 5's `logs.all` retention of each `project_tier`; anything else is `FREE`. */
export const TIER_RETENTION_US: Readonly<Record<string, number>> = {
  FREE: DAY_US,
  PRO: 7 * DAY_US,
  PAYG: 90 * DAY_US,
  ENTERPRISE: 90 * DAY_US,
};

/** docs/API.md: a `usage.api-counts` pattern has at most this many characters... */
const MAX_PATTERN_CHARACTERS = 256;
/** ...and compiles to at most this many RE2 instructions. */
const MAX_PATTERN_INSTRUCTIONS = 1_000;

export interface InvocationQuery {
  readonly project: string;
  /** Null: every function of the project. */
  readonly functionId: string | null;
  readonly interval: keyof typeof INVOCATION_INTERVALS;
}

export interface LogsQuery {
  readonly project: string;
  readonly retentionUs: number;
  /** Strictly after, or null. */
  readonly startUs: number | null;
  /** At or before, or null. */
  readonly endUs: number | null;
}

export interface ApiCountsQuery {
  /** Whether the pattern is found anywhere in a request host. */
  readonly matches: (host: string) => boolean;
  readonly interval: keyof typeof USAGE_INTERVALS;
}

/** The last value of a parameter (a repeated one takes its last), or null when absent. */
function value(source: QuerySource, name: string): string | null {
  if (source instanceof URLSearchParams) {
    const all = source.getAll(name);
    return all.length === 0 ? null : all[all.length - 1] ?? null;
  }
  return Object.hasOwn(source, name) ? source[name] ?? null : null;
}

function refuse(code: QueryRefusal['code'], parameter: string): QueryResult<never> {
  return { ok: false, error: { code, parameter } };
}

function present(text: string | null): text is string {
  return text !== null && text !== '';
}

/** `functions.invocation-stats`: `project` required; `interval` outside the table is `1day`. */
export function invocationQuery(source: QuerySource): QueryResult<InvocationQuery> {
  const project = value(source, 'project');
  if (!present(project)) return refuse('missing_parameter', 'project');
  const functionId = value(source, 'function_id');
  const interval = value(source, 'interval') ?? '';
  return {
    ok: true,
    query: {
      project,
      functionId: present(functionId) ? functionId : null,
      interval: Object.hasOwn(INVOCATION_INTERVALS, interval)
        ? interval as InvocationQuery['interval']
        : '1day',
    },
  };
}

/** `logs.all`: `project` required; tier falls back to `FREE`; bad timestamps refused. */
export function logsQuery(source: QuerySource): QueryResult<LogsQuery> {
  const project = value(source, 'project');
  if (!present(project)) return refuse('missing_parameter', 'project');
  const bounds: (number | null)[] = [];
  for (const name of ['iso_timestamp_start', 'iso_timestamp_end']) {
    const text = value(source, name);
    if (!present(text)) {
      bounds.push(null);
      continue;
    }
    const us = parameterInstant(text);
    if (us === null) return refuse('invalid_parameter', name);
    bounds.push(us);
  }
  const tier = value(source, 'project_tier') ?? '';
  return {
    ok: true,
    query: {
      project,
      retentionUs: Object.hasOwn(TIER_RETENTION_US, tier)
        ? TIER_RETENTION_US[tier] ?? DAY_US
        : DAY_US,
      startUs: bounds[0] ?? null,
      endUs: bounds[1] ?? null,
    },
  };
}

/** `usage.api-counts`: an RE2 `project` pattern within the limits; one of six intervals. */
export function apiCountsQuery(source: QuerySource): QueryResult<ApiCountsQuery> {
  const pattern = value(source, 'project');
  if (!present(pattern)) return refuse('missing_parameter', 'project');
  if ([...pattern].length > MAX_PATTERN_CHARACTERS) return refuse('invalid_parameter', 'project');
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    if (error instanceof RE2JSException) return refuse('invalid_parameter', 'project');
    throw error;
  }
  if (compiled.programSize() > MAX_PATTERN_INSTRUCTIONS) {
    return refuse('invalid_parameter', 'project');
  }
  const interval = value(source, 'interval');
  if (!present(interval)) return refuse('missing_parameter', 'interval');
  if (!Object.hasOwn(USAGE_INTERVALS, interval)) return refuse('invalid_parameter', 'interval');
  return {
    ok: true,
    query: {
      matches: (host) => compiled.test(host),
      interval: interval as ApiCountsQuery['interval'],
    },
  };
}
