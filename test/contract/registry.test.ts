import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES, ENDPOINTS, MAX_ROWS } from '../../src/contract/registry.ts';

describe('endpoint registry', () => {
  it('holds the three records of CONTRACT section 4', () => {
    expect(
      ENDPOINTS.map((
        r,
      ) => [r.name, r.id, r.maxRows, r.cacheSeconds, r.warmingSeconds, r.sandboxing]),
    ).toEqual([
      ['functions.invocation-stats', '9da1cf56-a100-4d8b-8b7f-e5ceec992fc3', 1000, 900, 300, false],
      ['logs.all', 'c0d7853c-5f4f-4a57-9f05-fa926b9511aa', 1000, 0, 0, false],
      ['usage.api-counts', '966f33a6-47d1-4797-ac34-623aed8fa98c', 1000, 900, 300, false],
    ]);
    expect(ENDPOINTS.map((r) => r.name)).toEqual([...ENDPOINT_NAMES]);
    expect(MAX_ROWS).toBe(1000);
  });

  it('lists the required parameters of each endpoint (those with a fallback are optional)', () => {
    const required = ENDPOINTS.map((r) =>
      r.parameters.filter((p) => p.required).map((p) => p.name)
    );
    expect(required).toEqual([['project'], ['project'], ['project', 'interval']]);
  });
});
