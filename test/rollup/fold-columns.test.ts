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
import { parse } from '../../src/events/parse.ts';
import type { LogEvent, Source } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import type { RollupDelta } from '../../src/rollup/fold-delta.ts';
import { memberText } from '../../src/store/member-text.ts';
import { ObjectFold } from './object-fold.ts';

const NOW_US = 1_795_256_130_123_456;
const MINUTE_US = 60_000_000;
const DAY_US = 86_400_000_000;
/** Generated cases per run; the mutation run asks for fewer (vitest.mutation.config.ts). */
const RUNS = Number(process.env.FOLD_COLUMNS_RUNS ?? 150);

/** Stands for `-0` in a generated message (JSON.stringify writes -0 as `0`); see {@link json}. */
const NEGATIVE_ZERO = 'negative zero';

/** Execution times that make ties, signed zeros, reals and large integers likely. */
const executionTime = fc.option(
  fc.oneof(
    fc.constantFrom(0, NEGATIVE_ZERO, 1, 2, 2.5, 1e-7, 1e15, 2 ** 53),
    fc.integer({ min: 0, max: 40 }),
    fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  ),
  { nil: null },
);

/** Event times: mostly the last few minutes (dense buckets), some days back (expired grains). */
const timestamp = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: NOW_US - 3 * MINUTE_US, max: NOW_US }) },
  { weight: 1, arbitrary: fc.integer({ min: NOW_US - 8 * DAY_US, max: NOW_US }) },
);

const project = fc.constantFrom('pa', 'pb', 'pc{x}', 'pd');

const functionEdge = fc.record({
  id: fc.constantFrom('e1', 'e2'),
  timestamp,
  metadata: project.chain((ref) =>
    fc.array(
      fc.record({
        project_ref: fc.constant(ref),
        function_id: fc.option(fc.constantFrom('f1', 'f2', 'f/3', ''), { nil: null }),
        execution_time_ms: executionTime,
        response: fc.array(
          fc.record({
            status_code: fc.option(fc.integer({ min: 0, max: 700 }), { nil: null }),
          }),
          { maxLength: 3 },
        ),
      }),
      { minLength: 1, maxLength: 3 },
    )
  ),
});

const edge = fc.record({
  id: fc.constantFrom('e1', 'e2', 'e3'),
  timestamp,
  project,
  event_message: fc.constantFrom('GET /rest/v1/t', 'x'),
  metadata: fc.array(
    fc.record({
      request: fc.array(
        fc.oneof(
          fc.record({
            host: fc.constantFrom('a.example', 'b.example', 'c.example'),
            path: fc.constantFrom('/rest/v1/t', '/auth/v1/user', '/storage/v1/realtime', '/x'),
          }),
          fc.record({ url: fc.constantFrom('https://a.example/rest/v1/rpc/auth', 'nohost') }),
          fc.record({ path: fc.constant('/rest/v1/t') }),
        ),
        { maxLength: 3 },
      ),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

/** One event as the writer folds it, or null when the generated message is refused. */
type Message =
  | { readonly kind: 'function-edge' | 'edge'; readonly text: string }
  | { readonly kind: 'source'; readonly text: string; readonly withEdge: boolean };

const message: fc.Arbitrary<Message> = fc.oneof(
  {
    weight: 5,
    arbitrary: functionEdge.map((m): Message => ({ kind: 'function-edge', text: json(m) })),
  },
  { weight: 3, arbitrary: edge.map((m): Message => ({ kind: 'edge', text: json(m) })) },
  {
    weight: 1,
    arbitrary: fc.tuple(edge, fc.boolean()).map(([m, withEdge]): Message => ({
      kind: 'source',
      text: json(m),
      withEdge,
    })),
  },
);

/** The JSON text of a generated message, with a producer's `-0` where one was asked for. */
function json(value: unknown): string {
  return JSON.stringify(value).replaceAll(`"${NEGATIVE_ZERO}"`, '-0');
}

function parsed(text: string, source: Source): LogEvent | null {
  const result = parse(text, source, { nowUs: NOW_US });
  return result.ok ? result.event : null;
}

function logEvent(message: Message): LogEvent | null {
  if (message.kind !== 'source') return parsed(message.text, message.kind);
  const edge = parsed(message.text, 'edge');
  if (edge === null || edge.source !== 'edge') return null;
  return {
    source: 'logflare',
    sourceName: 'cloudflare.logs.prod',
    id: edge.id,
    timestampUs: edge.timestampUs,
    project: edge.project,
    text: message.text,
    edge: message.withEdge ? edge : null,
  };
}

/** A delta as plain data, with every state in its stored text. */
function plain(delta: RollupDelta): unknown {
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
      logs: project.logs.map(({ score, member }) => [score, memberText(member)]),
      sources: [...project.sources].map(([source, rows]) => [
        source,
        rows.map(({ score, member }) => [score, memberText(member)]),
      ]),
      hosts: [...project.hosts],
      admitted: [...project.admitted],
      newestUs: project.newestUs,
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
    return plain(fold.take());
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
          response: [{ status_code: 200 + (i % 4) * 100 }],
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
