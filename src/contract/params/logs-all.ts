/**
 * Parameters of `logs.all` (CONTRACT section 5).
 *
 * @module
 */

import { parseParameterTimestamp } from '../../time/timestamp.ts';
import { type ProjectTier, TIER_RETENTION_US, tierOf } from '../tiers.ts';
import {
  invalidParameter,
  type ParamResult,
  type ParamSource,
  PROJECT_REF_HINT,
  readParam,
  requiredParam,
} from './common.ts';

/** Typed parameters of `logs.all`. */
export interface LogsAllParams {
  /** Equality with the top-level `project` of `edge` events. */
  readonly project: string;
  /** The tier `project_tier` stands for (unknown values are `FREE`). */
  readonly tier: ProjectTier;
  /** Only entries strictly newer than `now - retentionUs`. */
  readonly retentionUs: number;
  /** Only entries strictly after this instant (µs), or null. */
  readonly startUs: number | null;
  /** Only entries at or before this instant (µs), or null. */
  readonly endUs: number | null;
}

const TIMESTAMP_EXPECTED =
  'an RFC 3339 timestamp such as 2026-11-21T10:15:00Z (without a zone it is taken as UTC)';

/**
 * Reads the parameters of `logs.all`: `project` and `project_tier` (required),
 * `iso_timestamp_start` and `iso_timestamp_end` (optional; empty = none; unparseable =
 * `invalid_parameter`). A start after the end is not an error: it selects nothing.
 *
 * @example
 * ```ts
 * parseLogsAllParams(new URLSearchParams('project=p&project_tier=PRO&iso_timestamp_end=2026-11-21'));
 * // { ok: true, params: { project: 'p', tier: 'PRO', retentionUs: 604800000000,
 * //   startUs: null, endUs: 1795219200000000 } }
 * ```
 */
export function parseLogsAllParams(source: ParamSource): ParamResult<LogsAllParams> {
  const project = requiredParam(source, 'project', PROJECT_REF_HINT);
  if (!project.ok) return project;
  const tierText = readParam(source, 'project_tier') ?? '';
  const start = optionalTimestamp(source, 'iso_timestamp_start');
  if (!start.ok) return start;
  const end = optionalTimestamp(source, 'iso_timestamp_end');
  if (!end.ok) return end;
  const tier = tierOf(tierText);
  return {
    ok: true,
    params: {
      project: project.params,
      tier,
      retentionUs: TIER_RETENTION_US[tier],
      startUs: start.params,
      endUs: end.params,
    },
  };
}

function optionalTimestamp(source: ParamSource, name: string): ParamResult<number | null> {
  const text = readParam(source, name);
  if (text === null || text === '') return { ok: true, params: null };
  const us = parseParameterTimestamp(text);
  if (us === null) return invalidParameter(name, TIMESTAMP_EXPECTED, text);
  return { ok: true, params: us };
}
