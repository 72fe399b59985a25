import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent, Source } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import {
  type ProjectDelta,
  type RollupDelta,
  type StateObject,
  stateObject,
} from '../../src/rollup/fold-delta.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';

/**
 * The part of `delta` folded for `project`, its states as objects by address; fails the test
 * when there is none.
 */
function projectDelta(
  delta: RollupDelta,
  project: string,
): Omit<ProjectDelta, 'states'> & { states: Map<string, StateObject> } {
  const found = delta.projects.get(project);
  if (found === undefined) throw new Error(`no delta for project ${project}`);
  const states = new Map(found.states.map((state) => [state.address, stateObject(delta, state)]));
  return { ...found, states };
}

/** 2026-11-21T10:15:30.123456Z. */
const NOW_US = 1_795_256_130_123_456;
const DAY_US = 86_400_000_000;

function event(source: Source, fields: Record<string, unknown>): LogEvent {
  const result = parse(JSON.stringify({ id: 'e', timestamp: NOW_US - 1, ...fields }), source, {
    nowUs: NOW_US,
  });
  if (!result.ok) throw new Error(result.rejection.reason);
  return result.event;
}

function invocationCount(state: StateObject | undefined): number | undefined {
  return state?.kind === 'invocation' ? invocationStats.finalize(state.state).count : undefined;
}

describe('Fold', () => {
  test('an invocation lands in every grain, for all functions and for its function', () => {
    const fold = new Fold('test/0');
    fold.add(
      event('function-edge', {
        metadata: [{
          project_ref: 'p',
          function_id: 'f/1',
          execution_time_ms: 5,
          response: [{ status_code: 200 }, { status_code: 503 }],
        }],
      }),
      0,
      NOW_US,
    );
    const taken = fold.take();
    expect(taken.events).toBe(1);
    expect([...taken.projects.keys()]).toEqual(['p']);
    const delta = projectDelta(taken, 'p');
    expect([...delta.states.keys()].sort()).toEqual([
      'rollup:{p}:inv:*:S:1795256100#30',
      'rollup:{p}:inv:*:d:1795219200',
      'rollup:{p}:inv:*:h:1795255200',
      'rollup:{p}:inv:*:m:1795256100',
      'rollup:{p}:inv:ff%2F1:S:1795256100#30',
      'rollup:{p}:inv:ff%2F1:d:1795219200',
      'rollup:{p}:inv:ff%2F1:h:1795255200',
      'rollup:{p}:inv:ff%2F1:m:1795256100',
    ]);
    for (const state of delta.states.values()) expect(invocationCount(state)).toBe(2);
    expect(delta.logs).toHaveLength(0);
    expect(delta.hosts.size).toBe(0);
  });

  test('a request counts under its host at every grain; the entry and the host are kept', () => {
    const fold = new Fold('test/0');
    const older = event('edge', {
      id: 'older',
      timestamp: NOW_US - 2_000_000,
      project: 'p',
      metadata: [{ request: [{ host: 'p.example', path: '/rest/v1/t' }] }],
    });
    const newer = event('edge', {
      id: 'newer',
      project: 'p',
      metadata: [{ request: [{ url: 'https://p.example/auth/v1/user' }, { path: '/no-host' }] }],
    });
    fold.add(newer, 1, NOW_US);
    fold.add(older, 0, NOW_US);
    const delta = projectDelta(fold.take(), 'p');
    expect([...delta.states.keys()].filter((key) => key.includes(':m:'))).toEqual([
      'rollup:{p}:use:p.example:m:1795256100',
    ]);
    expect(delta.states.get('rollup:{p}:use:p.example:m:1795256100')).toMatchObject({
      kind: 'usage',
      state: { total: 2, rest: 1, auth: 1, storage: 0, realtime: 0 },
    });
    expect(delta.logs.map((member) => member.score)).toEqual([
      NOW_US - 1,
      NOW_US - 2_000_000,
    ]);
    // The registry keeps the newest time a host was seen, whatever the arrival order.
    expect([...delta.hosts]).toEqual([['p.example', NOW_US - 1]]);
    const inOrder = new Fold('test/0');
    inOrder.add(older, 0, NOW_US);
    inOrder.add(newer, 1, NOW_US);
    expect([...projectDelta(inOrder.take(), 'p').hosts]).toEqual([['p.example', NOW_US - 1]]);
  });

  test('a late event skips the grains whose buckets nothing reads any more', () => {
    const fold = new Fold('test/0');
    fold.add(
      event('function-edge', {
        timestamp: NOW_US - 2 * DAY_US,
        metadata: [{ project_ref: 'p', response: [{ status_code: 200 }] }],
      }),
      0,
      NOW_US,
    );
    // Seconds are read for 5 minutes, minutes for an hour, hours for a day, days for 7 days.
    expect([...projectDelta(fold.take(), 'p').states.keys()]).toEqual([
      'rollup:{p}:inv:*:d:1795046400',
    ]);
  });

  test('take hands over the delta and starts afresh', () => {
    const fold = new Fold('test/0');
    fold.add(
      event('edge', { project: 'p', metadata: [] }),
      0,
      NOW_US,
    );
    expect(fold.size).toBe(1);
    expect(projectDelta(fold.take(), 'p').logs).toHaveLength(1);
    expect(fold.size).toBe(0);
    const empty = fold.take();
    expect([empty.events, empty.projects.size]).toEqual([0, 0]);
  });
});
