import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { familiesOf } from '../../src/contract/families.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import {
  type GeneratedLine,
  generateEvents,
  type GeneratorOptions,
  syntheticPopulation,
} from '../../src/synthetic/generator.ts';
import { INVALID_KINDS } from '../../src/synthetic/invalid.ts';
import { us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:15:30Z');
const HOUR = 3_600_000_000;

const lines = (
  options: Partial<GeneratorOptions> & { seed: number; events: number },
): GeneratedLine[] => [
  ...generateEvents({ nowUs: NOW, ...options }),
];

function parsed(list: readonly GeneratedLine[]): LogEvent[] {
  return list.flatMap(({ source, line }) => {
    const result = parse(line, source, { nowUs: NOW });
    return result.ok ? [result.event] : [];
  });
}

describe('generateEvents: determinism', () => {
  it('yields the same lines for the same seed and options', () => {
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 0, max: 1, noNaN: true }), (seed, invalid) => {
        const options = { seed, events: 50, invalid, outOfOrder: 0.1 };
        expect(lines(options)).toEqual(lines(options));
      }),
      { numRuns: 20 },
    );
  });

  it('yields different lines for different seeds', () => {
    expect(lines({ seed: 1, events: 5 })).not.toEqual(lines({ seed: 2, events: 5 }));
  });

  it('is lazy: taking a few lines of a huge stream is immediate', () => {
    const stream = generateEvents({ seed: 1, events: Number.MAX_SAFE_INTEGER, nowUs: NOW });
    expect(stream.next().done).toBe(false);
  });
});

describe('generateEvents: validity', () => {
  it('yields lines that parse when valid and are rejected when invalid', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, invalid, outOfOrder) => {
          for (
            const generated of generateEvents({ seed, events: 60, nowUs: NOW, invalid, outOfOrder })
          ) {
            const result = parse(generated.line, generated.source, { nowUs: NOW });
            expect(result.ok, `${generated.invalid}: ${generated.line}`).toBe(
              generated.invalid === null,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('produces every kind of invalid event, each rejected for its own reason', () => {
    const reasons = new Map<string, string[]>();
    for (const generated of generateEvents({ seed: 3, events: 500, nowUs: NOW, invalid: 1 })) {
      const result = parse(generated.line, generated.source, { nowUs: NOW });
      if (result.ok || generated.invalid === null) throw new Error(`accepted: ${generated.line}`);
      reasons.set(generated.invalid, [
        ...(reasons.get(generated.invalid) ?? []),
        result.rejection.reason,
      ]);
    }
    expect([...reasons.keys()].toSorted()).toEqual([...INVALID_KINDS].toSorted());
    const all = (kind: string, test: (reason: string) => boolean) =>
      (reasons.get(kind) ?? []).every(test);
    expect(all('not-json', (r) => r.startsWith('not valid JSON'))).toBe(true);
    expect(all('bad-timestamp', (r) => r.startsWith('timestamp must be an RFC 3339 string'))).toBe(
      true,
    );
    expect(all('future', (r) => r.includes('in the future'))).toBe(true);
    expect(all('too-old', (r) => r.includes('days old'))).toBe(true);
    expect(all('schema', (r) => !r.startsWith('not valid JSON') && !r.startsWith('timestamp')))
      .toBe(true);
  });

  it('yields only valid lines by default, NDJSON-safe (no newline inside a line)', () => {
    const list = lines({ seed: 9, events: 300 });
    expect(list.every((l) => l.invalid === null && !l.line.includes('\n'))).toBe(true);
    expect(parsed(list)).toHaveLength(300);
  });
});

describe('generateEvents: time', () => {
  it('spreads timestamps over the span ending at now, ascending without out-of-order events', () => {
    const events = parsed(lines({ seed: 4, events: 400, spanUs: HOUR }));
    const times = events.map((e) => e.timestampUs);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - HOUR);
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(0.9 * HOUR);
    // Shorter timestamp forms truncate to ms or s, so compare at second precision.
    const seconds = times.map((t) => Math.floor(t / 1_000_000));
    expect(seconds).toEqual(seconds.toSorted((a, b) => a - b));
  });

  it('sends some events late with an out-of-order share', () => {
    const times = parsed(lines({ seed: 4, events: 400, outOfOrder: 0.2 })).map((e) =>
      e.timestampUs
    );
    const decreases = times.filter((t, i) => i > 0 && t < (times[i - 1] ?? 0) - 1_000_000).length;
    expect(decreases).toBeGreaterThan(20);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - HOUR);
  });
});

describe('generateEvents: content', () => {
  const list = lines({ seed: 11, events: 4000 });
  const events = parsed(list);
  const edges = events.flatMap((e) => (e.source === 'edge' ? [e] : []));
  const functions = events.flatMap((e) => (e.source === 'function-edge' ? [e] : []));

  it('mixes both sources, edge events being the majority', () => {
    expect(edges.length).toBeGreaterThan(functions.length);
    expect(functions.length).toBeGreaterThan(500);
  });

  it('uses 20-letter refs and <ref>.supabase.co hosts', () => {
    for (const event of edges) {
      expect(event.project).toMatch(/^[a-z]{20}$/);
      for (const request of event.requests) {
        expect(request.host).toBe(`${event.project}.supabase.co`);
      }
    }
  });

  it('skews activity: the busiest project has far more events than the median one', () => {
    const perProject = new Map<string, number>();
    for (const event of events) {
      perProject.set(event.project, (perProject.get(event.project) ?? 0) + 1);
    }
    const sorted = [...perProject.values()].toSorted((a, b) => b - a);
    expect(sorted[0] ?? 0).toBeGreaterThan(20 * (sorted[Math.floor(sorted.length / 2)] ?? 1));
  });

  it('covers every family, paths of two families, and paths of none', () => {
    const families = edges.flatMap((e) => e.requests.map((r) => familiesOf(r.path)));
    for (const family of ['rest', 'storage', 'auth', 'realtime']) {
      expect(families.some((f) => f.length === 1 && f[0] === family)).toBe(true);
    }
    expect(families.some((f) => f.length === 2)).toBe(true);
    expect(families.some((f) => f.length === 0)).toBe(true);
  });

  it('omits host or path sometimes, so readers fall back to the url', () => {
    const raw = list.filter((l) => l.source === 'edge').map((l) => l.line);
    expect(raw.some((line) => !line.includes('"host":'))).toBe(true);
    expect(raw.some((line) => !line.includes('"path":'))).toBe(true);
  });

  it('has 4xx and 5xx statuses in both sources', () => {
    const edgeStatuses = edges.map((e) => e.metadata[0]?.response);
    const text = JSON.stringify(edgeStatuses);
    expect(text).toMatch(/"status_code":4\d\d/);
    expect(text).toMatch(/"status_code":5\d\d/);
    const codes = functions.flatMap((e) => e.invocations.map((i) => i.statusCode ?? 0));
    expect(codes.some((c) => c >= 400 && c < 500)).toBe(true);
    expect(codes.some((c) => c >= 500)).toBe(true);
  });

  it('draws execution times with a heavy tail', () => {
    const times = functions.flatMap((e) => e.invocations.map((i) => i.executionTimeMs))
      .filter((t): t is number => t !== null)
      .toSorted((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    expect(times.at(-1) ?? 0).toBeGreaterThan(10 * median);
    expect(times.every((t) => t >= 0)).toBe(true);
  });

  it('writes edge events of about 1 KB', () => {
    const sizes = list.filter((l) => l.source === 'edge').map((l) => l.line.length);
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    expect(mean).toBeGreaterThan(800);
    expect(mean).toBeLessThan(1600);
  });

  it('gives every project 1 to 20 functions', () => {
    const population = syntheticPopulation(11, 200);
    expect(population.projects).toHaveLength(200);
    const counts = population.projects.map((p) => p.functions.length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(20);
    expect(new Set(counts).size).toBeGreaterThan(10);
  });
});

describe('generateEvents: options', () => {
  it.each([
    [{ seed: 1.5 }, 'seed must be a safe integer: got 1.5'],
    [{ events: -1 }, 'events must be a non-negative integer: got -1'],
    [{ nowUs: 1.5 }, 'nowUs must be integer microseconds since the epoch: got 1.5'],
    [{ spanUs: 0 }, 'spanUs must be a positive integer of microseconds: got 0'],
    [{ invalid: 1.5 }, 'invalid must be a share between 0 and 1: got 1.5'],
    [{ outOfOrder: -0.1 }, 'outOfOrder must be a share between 0 and 1: got -0.1'],
    [{ edgeShare: Number.NaN }, 'edgeShare must be a share between 0 and 1: got NaN'],
    [{ projects: 0 }, 'projects must be a positive integer: got 0'],
  ])('refuses %j', (patch, message) => {
    expect(() => generateEvents({ seed: 1, events: 1, nowUs: NOW, ...patch }).next()).toThrow(
      message,
    );
  });

  it('yields nothing for zero events, and only one source at the extremes of edgeShare', () => {
    expect(lines({ seed: 1, events: 0 })).toEqual([]);
    expect(lines({ seed: 1, events: 50, edgeShare: 1 }).every((l) => l.source === 'edge')).toBe(
      true,
    );
    expect(lines({ seed: 1, events: 50, edgeShare: 0 }).every((l) => l.source === 'function-edge'))
      .toBe(true);
  });
});
