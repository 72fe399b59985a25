import { describe, expect, test } from 'vitest';
import { ProjectsPerKey } from '../../../api/ingest/projects-per-key.ts';
import type { AcceptedEvent } from '../../../api/ingest/validate.ts';
import { parse } from '../../../src/events/parse.ts';

const NOW_US = 1_795_256_130_123_456;

function accepted(line: number, project: string): AcceptedEvent {
  const text = JSON.stringify({ id: `e${line}`, timestamp: NOW_US - 1, project, metadata: [] });
  const parsed = parse(text, 'edge', { nowUs: NOW_US });
  if (!parsed.ok) throw new Error(parsed.rejection.reason);
  return { event: parsed.event, text, line };
}

describe('ProjectsPerKey', () => {
  test('counts each key apart, and takes back what a body refused whole had counted', () => {
    const perKey = new ProjectsPerKey({ maxPerDay: 2, nowUs: () => NOW_US });
    const first = perKey.admit(0, [accepted(1, 'a'), accepted(2, 'b'), accepted(3, 'a')]);
    expect(first.counted).toEqual(['a', 'b']);
    expect(first.admitted.map((event) => event.line)).toEqual([1, 2, 3]);
    expect(perKey.admit(0, [accepted(1, 'c')]).refused.map((error) => error.line)).toEqual([1]);
    expect(perKey.admit(1, [accepted(1, 'c')]).counted).toEqual(['c']);
    perKey.uncount(0, ['b']);
    const after = perKey.admit(0, [accepted(1, 'c'), accepted(2, 'b')]);
    expect(after.counted).toEqual(['c']);
    expect(after.refused.map((error) => error.line)).toEqual([2]);
  });

  test('refuses a bound that is not a positive integer', () => {
    expect(() => new ProjectsPerKey({ maxPerDay: 0, nowUs: () => NOW_US })).toThrow(
      "'maxPerDay' must be a positive integer: current value is 0",
    );
  });
});
