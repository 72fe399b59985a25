/**
 * Project tiers and the retention window of `logs.all` for each (CONTRACT section 5).
 *
 * @module
 */

import { MAX_EVENT_AGE_US } from '../events/limits.ts';
import { DAY_US } from '../time/civil.ts';

/** The project tiers with their own retention. */
export const PROJECT_TIERS = ['FREE', 'PRO', 'PAYG', 'ENTERPRISE'] as const;

/** A project tier. */
export type ProjectTier = (typeof PROJECT_TIERS)[number];

/** How far back `logs.all` reaches for each tier, in microseconds. */
export const TIER_RETENTION_US: Readonly<Record<ProjectTier, number>> = {
  FREE: DAY_US,
  PRO: 7 * DAY_US,
  PAYG: MAX_EVENT_AGE_US,
  ENTERPRISE: MAX_EVENT_AGE_US,
};

/** The longest retention of any tier: events older than this can never be returned. */
export const LONGEST_RETENTION_US = Math.max(...Object.values(TIER_RETENTION_US));

/**
 * The tier a `project_tier` value stands for. Exact, case-sensitive match; anything else is
 * `FREE`, as CONTRACT section 5 says.
 *
 * @example
 * ```ts
 * tierOf('PRO'); // 'PRO'
 * tierOf('pro'); // 'FREE'
 * ```
 */
export function tierOf(value: string): ProjectTier {
  for (const tier of PROJECT_TIERS) if (tier === value) return tier;
  return 'FREE';
}
