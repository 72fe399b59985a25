/**
 * Identical requests share one answer, computed with the matching share of the caller that came
 * first. When that share runs out mid-way, its 429 is that caller's alone: the others compute
 * again with their own. Matching time runs on an injected clock that advances 20 ms at each
 * reading, so every host tested ends a slice.
 */
import { describe, expect, test } from 'vitest';
import { createAnswerer } from '../../../api/answer/answer.ts';
import { Coalescer } from '../../../api/answer/coalesce.ts';
import { HostCache } from '../../../api/answer/host-cache.ts';
import type { MatchShare } from '../../../api/answer/match-gate.ts';
import { HttpError, rateLimited } from '../../../api/errors.ts';
import { ENDPOINTS } from '../../../src/contract/registry.ts';
import type { RegisteredHost } from '../../../src/rollup/keys.ts';
import { MemoryStore } from '../../../src/store/memory.ts';

const NOW_US = 1_795_256_130_123_456;

/** A share of `ms`, whole at first, refused once nothing is left. */
function share(ms: number, name: string): MatchShare {
  let left = ms;
  return {
    spend: (charged) => {
      left -= charged;
    },
    left: () => left,
    rested: () => left >= ms,
    refusal: () => (left > 0 ? null : rateLimited(`${name}'s share used up`, 7_000)),
  };
}

describe('coalesced answers and matching shares', () => {
  test("a request coalesced onto another key's answer refused for that key's share computes with its own", async () => {
    let matchClock = 0;
    const hosts: RegisteredHost[] = Array.from({ length: 5 }, (_, i) => ({
      project: 'p',
      host: `h${i}.p.example`,
      newestUs: NOW_US - 60_000_000,
    }));
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    const answer = createAnswerer({
      context: () => ({ store, nowUs: NOW_US, maxFutureSkewUs: 0 }),
      hosts: new HostCache({
        read: () => Promise.resolve(hosts),
        nowMs: () => NOW_US / 1000,
        matchClockMs: () => (matchClock += 20),
      }),
      coalescer: new Coalescer({ nowMs: () => NOW_US / 1000 }),
      maxBytes: 1024 * 1024,
    });
    const record = ENDPOINTS.find((endpoint) => endpoint.name === 'usage.api-counts');
    if (record === undefined) throw new Error('usage.api-counts is not in the registry');
    const params = new URLSearchParams({ project: 'h[0-9]\\.p', interval: 'hourly' });
    const [refused, answered] = await Promise.allSettled([
      answer(record, params, { matchShare: share(30, 'first') }),
      answer(record, params, { matchShare: share(10_000, 'second') }),
    ]);
    const reason: unknown = refused.status === 'rejected' ? refused.reason : null;
    expect(reason instanceof HttpError && [reason.status, reason.message]).toEqual([
      429,
      "first's share used up: retry after 7 s",
    ]);
    expect(answered.status === 'rejected' ? answered.reason : null).toBeNull();
    expect(answered.status === 'fulfilled' && answered.value.ok).toBe(true);
  });
});
