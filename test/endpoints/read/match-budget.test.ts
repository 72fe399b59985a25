/**
 * Matching a caller's pattern against the registered hosts within its time budget (the pattern
 * is the caller's; see src/endpoints/read/hosts.ts), on a clock the test moves: every host costs
 * a known number of milliseconds to match, so where matching yields and where it is refused are
 * exact.
 */
import { describe, expect, test } from 'vitest';
import { ParamRefusal } from '../../../src/contract/params/common.ts';
import type { HostPattern } from '../../../src/contract/params/api-counts.ts';
import { type HostEntry, matchHosts } from '../../../src/endpoints/read/hosts.ts';

/** Hosts `host0.example`…, each costing `costMs` to match; the even ones match. */
function timedMatching(hosts: number, costMs: number) {
  let nowMs = 0;
  let tested = 0;
  let turns = 0;
  const entries: HostEntry[] = Array.from(
    { length: hosts },
    (_, i) => ({ project: 'p', host: `host${i}.example` }),
  );
  const pattern: HostPattern = {
    source: 'host[02468]\\.',
    test: (host) => {
      nowMs += costMs;
      tested += 1;
      return /host\d*[02468]\./.test(host);
    },
  };
  const match = (budgetMs: number) =>
    matchHosts(entries, pattern, {
      budgetMs,
      clockMs: () => nowMs,
      nextTurn: () => {
        turns += 1;
        return Promise.resolve();
      },
    });
  return { match, figures: () => ({ tested, turns }) };
}

describe('matching within a time budget', () => {
  test('gives other work a turn after each 10 ms of matching, not before', async () => {
    const { match, figures } = timedMatching(8, 5);
    const matched = await match(1_000);
    expect(matched.map((entry) => entry.host)).toEqual([
      'host0.example',
      'host2.example',
      'host4.example',
      'host6.example',
    ]);
    // 5 ms a host: a turn after every second host.
    expect(figures()).toEqual({ tested: 8, turns: 4 });
  });

  test('is refused once the time spent exceeds the budget, and not at the budget', async () => {
    for (const budgetMs of [24, 25]) {
      // 3 ms a host: slices of 12 ms end after hosts 4, 8 and 12 (12, 24, 36 ms spent).
      const { match, figures } = timedMatching(20, 3);
      const refusal = await match(budgetMs).then(() => null, (error: unknown) => error);
      if (!(refusal instanceof ParamRefusal)) throw new Error(`not refused: ${String(refusal)}`);
      expect(refusal.error).toMatchObject({ code: 'invalid_parameter', parameter: 'project' });
      expect(refusal.message).toContain(
        `the 20 registered hosts took longer than the budget of ${budgetMs} ms`,
      );
      expect(figures()).toEqual({ tested: 12, turns: 2 });
    }
  });
});
