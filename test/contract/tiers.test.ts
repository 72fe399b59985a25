import { describe, expect, it } from 'vitest';
import { LONGEST_RETENTION_US, TIER_RETENTION_US, tierOf } from '../../src/contract/tiers.ts';

const DAY = 86_400_000_000;

describe('tiers', () => {
  it.each(
    [
      ['FREE', 'FREE', DAY],
      ['PRO', 'PRO', 7 * DAY],
      ['PAYG', 'PAYG', 90 * DAY],
      ['ENTERPRISE', 'ENTERPRISE', 90 * DAY],
      ['pro', 'FREE', DAY],
      ['TEAM', 'FREE', DAY],
      ['', 'FREE', DAY],
      [' PRO', 'FREE', DAY],
    ] as const,
  )('%j is %s with a retention of %d us', (value, tier, retention) => {
    expect(tierOf(value)).toBe(tier);
    expect(TIER_RETENTION_US[tierOf(value)]).toBe(retention);
  });

  it('has 90 days as the longest retention', () => {
    expect(LONGEST_RETENTION_US).toBe(90 * DAY);
  });
});
