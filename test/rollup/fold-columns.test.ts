/**
 * Issue 48: the fold in columns hands a flush exactly what the fold of state objects did. Random
 * streams (keyed by project and not, events late enough that some grains are no longer written,
 * execution times with ties, -0, reals and integers, buckets past the 100 exact values of a
 * sketch, Logflare sources with and without an edge event) are folded through both, taken in
 * several flushes; every flush's delta must be the same: projects, each state's address, kind,
 * stored text, bucket start and expiry in the same order, ring-buffer members, hosts, admitted
 * keys and newest time.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Fold } from '../../src/rollup/fold.ts';
import type { ProjectDelta, RollupDelta } from '../../src/rollup/fold-delta.ts';
import { memberText } from '../../src/store/member-text.ts';
import {
  DAY_US,
  json,
  logEvent,
  type Message,
  message,
  MINUTE_US,
  NEGATIVE_ZERO,
  NOW_US,
} from './fold-streams.ts';
import { ObjectFold, type ObjectRollupDelta } from './object-fold.ts';

/** Generated cases per run; the mutation run asks for fewer (vitest.mutation.config.ts). */
const RUNS = Number(process.env.FOLD_COLUMNS_RUNS ?? 150);

/** What a delta holds besides its states, as plain data. */
function plainRest(project: Omit<ProjectDelta, 'states'>): unknown {
  return {
    logs: project.logs.map(({ score, member }) => [score, memberText(member)]),
    sources: [...project.sources].map(([source, rows]) => [
      source,
      rows.map(({ score, member }) => [score, memberText(member)]),
    ]),
    hosts: [...project.hosts],
    admitted: [...project.admitted],
    newestUs: project.newestUs,
  };
}

/** A delta of the fold in columns as plain data, with every state in its stored text. */
function plain(delta: RollupDelta): unknown {
  return {
    events: delta.events,
    projects: [...delta.projects].map(([name, project]) => ({
      name,
      states: project.states.map(({ address, kind, record, startUs, expireAtMs }) => [
        address,
        kind,
        delta.columns.text(record, kind),
        startUs,
        expireAtMs,
      ]),
      ...(plainRest(project) as object),
    })),
  };
}

/** A delta of the fold of state objects as plain data, in the same form. */
function plainObjects(delta: ObjectRollupDelta): unknown {
  return {
    events: delta.events,
    projects: [...delta.projects].map(([name, project]) => ({
      name,
      states: [...project.states].map(([address, pending]) => [
        address,
        pending.kind,
        pending.kind === 'invocation'
          ? pending.aggregate.serialize(pending.state)
          : pending.aggregate.serialize(pending.state),
        pending.startUs,
        pending.expireAtMs,
      ]),
      ...(plainRest(project) as object),
    })),
  };
}

/** Folds `flushes` through `fold`, taking a delta after each, as plain data. */
function foldAll(
  fold: Fold | ObjectFold,
  flushes: readonly (readonly Message[])[],
  nowUs: number,
): unknown[] {
  let offset = 0;
  return flushes.map((messages) => {
    for (const message of messages) {
      const event = logEvent(message);
      if (event !== null) {
        fold.add(event, offset, nowUs);
        fold.noteAdmitted(event.project, `admitted:${event.project}`, [event.id], 7);
      }
      offset += 1;
    }
    return fold instanceof Fold ? plain(fold.take()) : plainObjects(fold.take());
  });
}

describe('the fold in columns', () => {
  test('hands every flush exactly what the fold of state objects did', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(message, { maxLength: 60 }), { minLength: 1, maxLength: 4 }),
        // A clock up to two days after the events: later grains are no longer written.
        fc.integer({ min: 0, max: 2 * DAY_US }),
        (flushes, lateUs) => {
          const nowUs = NOW_US + lateUs;
          expect(foldAll(new Fold('t/0'), flushes, nowUs))
            .toEqual(foldAll(new ObjectFold('t/0'), flushes, nowUs));
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a bucket past the exact values of its sketch, and many buckets and scopes', () => {
    // 250 invocations of one function in one second: the sketch is binned past its 100th value.
    const dense = Array.from({ length: 250 }, (_, i): Message => ({
      kind: 'function-edge',
      text: json({
        id: `d${i}`,
        timestamp: NOW_US - 1_000 * (i % 7),
        metadata: [{
          project_ref: 'pa',
          // A function of signed zeros only: its min, max and sorted values tell 0 from -0.
          function_id: i % 10 === 9 ? 'zeros' : `f${i % 3}`,
          execution_time_ms: i % 10 === 9
            ? (i < 125 ? NEGATIVE_ZERO : 0)
            : i % 5 === 0
            ? NEGATIVE_ZERO
            : (i * 37) % 101 + (i % 2) / 4,
          // Every status class's edges (the contract takes 100 to 599).
          response: [{ status_code: [100, 199, 200, 399, 400, 499, 500, 599][i % 8] }],
        }],
      }),
    }));
    // 3,000 events over 600 projects and 50 minutes: the table and the arena grow.
    const spread = Array.from({ length: 3_000 }, (_, i): Message => ({
      kind: i % 3 === 0 ? 'edge' : 'function-edge',
      text: json(
        i % 3 === 0
          ? {
            id: `s${i}`,
            timestamp: NOW_US - (i % 50) * MINUTE_US - i,
            project: `p${i % 600}`,
            metadata: [{ request: [{ host: `h${i % 9}.example`, path: '/rest/v1/auth' }] }],
          }
          : {
            id: `s${i}`,
            timestamp: NOW_US - (i % 50) * MINUTE_US - i,
            metadata: [{
              project_ref: `p${i % 600}`,
              function_id: `f${i % 11}`,
              execution_time_ms: i % 13,
              response: [{ status_code: 200 }],
            }],
          },
      ),
    }));
    const flushes = [dense, spread, [...dense, ...spread]];
    const taken = foldAll(new Fold('t/0'), flushes, NOW_US);
    expect(taken).toEqual(foldAll(new ObjectFold('t/0'), flushes, NOW_US));
    const [first] = taken as { projects: { states: unknown[] }[] }[];
    // Every grain of all functions and of four functions.
    expect(first?.projects[0]?.states).toHaveLength(20);
  });
});
