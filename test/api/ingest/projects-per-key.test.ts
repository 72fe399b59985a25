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
    expect(first.admitted.map((event) => event.line)).toEqual([1, 2, 3]);
    expect(perKey.admit(0, [accepted(1, 'c')]).refused.map((error) => error.line)).toEqual([1]);
    expect(perKey.admit(1, [accepted(1, 'c')]).refused).toEqual([]);
    perKey.settle(first, false);
    const after = perKey.admit(0, [accepted(1, 'c'), accepted(2, 'b'), accepted(3, 'd')]);
    expect(after.refused.map((error) => error.line)).toEqual([3]);
  });

  test('a project another admission of the key relies on is not taken back', () => {
    const perKey = new ProjectsPerKey({ maxPerDay: 1, nowUs: () => NOW_US });
    const counting = perKey.admit(0, [accepted(1, 'p')]);
    const relying = perKey.admit(0, [accepted(1, 'p')]);
    expect(relying.refused).toEqual([]);
    perKey.settle(counting, false);
    perKey.settle(relying, true);
    // p was stored by the second body: it still counts, so a second project is refused.
    expect(perKey.admit(0, [accepted(1, 'q')]).refused).toHaveLength(1);
  });

  test('a project is taken back once every admission that touched it stored nothing', () => {
    const perKey = new ProjectsPerKey({ maxPerDay: 1, nowUs: () => NOW_US });
    const first = perKey.admit(0, [accepted(1, 'p')]);
    const second = perKey.admit(0, [accepted(1, 'p')]);
    perKey.settle(first, false);
    expect(perKey.admit(0, [accepted(1, 'q')]).refused).toHaveLength(1);
    perKey.settle(second, false);
    expect(perKey.admit(0, [accepted(1, 'q')]).refused).toEqual([]);
  });

  test('an admission settled twice is settled once', () => {
    const perKey = new ProjectsPerKey({ maxPerDay: 1, nowUs: () => NOW_US });
    const first = perKey.admit(0, [accepted(1, 'p')]);
    const second = perKey.admit(0, [accepted(1, 'p')]);
    perKey.settle(first, false);
    perKey.settle(first, false);
    // The second admission is still in flight: p is not taken back.
    expect(perKey.admit(0, [accepted(1, 'q')]).refused).toHaveLength(1);
    perKey.settle(second, true);
  });

  test('an admission of yesterday takes nothing back from today', () => {
    let nowUs = NOW_US;
    const perKey = new ProjectsPerKey({ maxPerDay: 1, nowUs: () => nowUs });
    const yesterday = perKey.admit(0, [accepted(1, 'p')]);
    nowUs += 86_400_000_000;
    const today = perKey.admit(0, [accepted(1, 'p')]);
    perKey.settle(today, true);
    perKey.settle(yesterday, false);
    expect(perKey.admit(0, [accepted(1, 'q')]).refused).toHaveLength(1);
  });

  test('refuses a bound that is not a positive integer', () => {
    expect(() => new ProjectsPerKey({ maxPerDay: 0, nowUs: () => NOW_US })).toThrow(
      "'maxPerDay' must be a positive integer: current value is 0",
    );
  });
});
