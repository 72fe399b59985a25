import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { MAX_ROWS } from '../../src/contract/registry.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { generateEvents, syntheticPopulation } from '../../src/synthetic/generator.ts';
import { edgeEvent, us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:15:30.5Z');

function validEvents(seed: number, count: number): LogEvent[] {
  const events: LogEvent[] = [];
  const stream = generateEvents({
    seed,
    events: count,
    nowUs: NOW,
    spanUs: 2 * 3_600_000_000,
    projects: 5,
  });
  for (const { source, line } of stream) {
    const result = parse(line, source, { nowUs: NOW });
    if (result.ok) events.push(result.event);
  }
  return events;
}

/** The project refs the generator uses for a seed (the hot one first). */
function refs(seed: number): string[] {
  return syntheticPopulation(seed, 5).projects.map((p) => p.ref);
}

describe('evaluateEndpoint (the reference)', () => {
  it('dispatches to each endpoint', () => {
    const events = [edgeEvent({ at: NOW - 1 })];
    const stats = evaluateEndpoint(
      'functions.invocation-stats',
      events,
      { project: 'p', interval: '1hr' },
      NOW,
    );
    const logs = evaluateEndpoint('logs.all', events, {
      project: 'abcdefghijklmnopqrst',
      project_tier: 'PRO',
    }, NOW);
    const counts = evaluateEndpoint('usage.api-counts', events, {
      project: 'abcdefghij',
      interval: 'hourly',
    }, NOW);
    expect([
      stats.ok && stats.rows.length,
      logs.ok && logs.rows.length,
      counts.ok && counts.rows.length,
    ])
      .toEqual([61, 1, 1]);
  });

  it.each(
    [
      ['functions.invocation-stats', { interval: '1hr' }, 'missing_parameter', 'project'],
      ['logs.all', { project_tier: 'PRO' }, 'missing_parameter', 'project'],
      ['usage.api-counts', { project: 'p', interval: 'weekly' }, 'invalid_parameter', 'interval'],
      ['usage.api-counts', { project: 'p', sql: 'x' }, 'missing_parameter', 'interval'],
    ] as const,
  )('%s with %j: %s %s', (endpoint, params, code, parameter) => {
    const result = evaluateEndpoint(endpoint, [], params, NOW);
    expect(result.ok ? null : [result.error.code, result.error.parameter]).toEqual([
      code,
      parameter,
    ]);
  });

  it('caps rows at maxRows, 1000 by default', () => {
    const capped = evaluateEndpoint(
      'functions.invocation-stats',
      [],
      { project: 'p', interval: '5min' },
      NOW,
      { maxRows: 10 },
    );
    expect(capped.ok && capped.rows.map((r) => r.timestamp)).toEqual(
      Array.from(
        { length: 10 },
        (_, i) => us(`2026-11-21T10:10:${String(30 + i).padStart(2, '0')}Z`),
      ),
    );
    const logs = Array.from({ length: 20 }, (_, i) => edgeEvent({ at: NOW - i }));
    const cappedLogs = evaluateEndpoint(
      'logs.all',
      logs,
      { project: 'abcdefghijklmnopqrst', project_tier: 'FREE' },
      NOW,
      {
        maxRows: 3,
      },
    );
    expect(cappedLogs.ok && cappedLogs.rows.length).toBe(3);
    expect(MAX_ROWS).toBe(1000);
    const full = evaluateEndpoint(
      'functions.invocation-stats',
      [],
      { project: 'p', interval: '5min' },
      NOW,
    );
    expect(full.ok && full.rows.length).toBe(301);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxRows %d', (maxRows) => {
    expect(() =>
      evaluateEndpoint('logs.all', [], { project: 'p', project_tier: 'FREE' }, NOW, { maxRows })
    )
      .toThrow(
        `maxRows must be a positive integer: got ${maxRows}`,
      );
  });
});

describe('evaluate: insensitive to event order', () => {
  it('gives the same rows for any permutation of the events', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer(), (seed, shuffleSeed) => {
        const events = validEvents(seed, 200);
        const shuffled = fc.sample(fc.shuffledSubarray(events, { minLength: events.length }), {
          numRuns: 1,
          seed: shuffleSeed,
        })[0] ?? [];
        expect(shuffled).toHaveLength(events.length);
        const [hot] = refs(seed);
        const queries = [
          ['functions.invocation-stats', { project: hot ?? '', interval: '5min' }],
          ['functions.invocation-stats', { project: hot ?? '', interval: '1day' }],
          ['logs.all', { project: hot ?? '', project_tier: 'FREE' }],
          ['usage.api-counts', { project: hot ?? '', interval: 'minutely' }],
          ['usage.api-counts', { project: 'supabase', interval: 'hourly' }],
        ] as const;
        for (const [endpoint, params] of queries) {
          expect(evaluateEndpoint(endpoint, shuffled, params, NOW)).toEqual(
            evaluateEndpoint(endpoint, events, params, NOW),
          );
        }
      }),
      { numRuns: 15 },
    );
  });

  it('answers something non-trivial for the generated events (the property above is not vacuous)', () => {
    const events = validEvents(7, 400);
    const [hot] = refs(7);
    const stats = evaluateEndpoint('functions.invocation-stats', events, {
      project: hot ?? '',
      interval: '1day',
    }, NOW);
    const logs = evaluateEndpoint(
      'logs.all',
      events,
      { project: hot ?? '', project_tier: 'FREE' },
      NOW,
    );
    expect(stats.ok && stats.rows.some((row) => row.count > 0)).toBe(true);
    expect(logs.ok && logs.rows.length).toBe(100);
  });
});
