/**
 * Random streams of producer messages for the fold's property tests (issue 48): dense buckets
 * (ties, signed zeros, reals, large integers, sketches past their exact values), late events
 * whose finer grains are no longer written, every source, and a few projects, functions and
 * hosts.
 *
 * @module
 */
import fc from 'fast-check';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent, Source } from '../../src/events/types.ts';

export const NOW_US = 1_795_256_130_123_456;
export const MINUTE_US = 60_000_000;
export const DAY_US = 86_400_000_000;

/** Stands for `-0` in a generated message (JSON.stringify writes -0 as `0`); see {@link json}. */
export const NEGATIVE_ZERO = 'negative zero';

/**
 * Execution times that make ties, signed zeros, reals and large values likely (up to the
 * contract's bound, `maxExecutionTimeMs`: larger ones are refused by the parser).
 */
const executionTime = fc.option(
  fc.oneof(
    fc.constantFrom(0, NEGATIVE_ZERO, 1, 2, 2.5, 1e-7, 999_999_999, 1e9),
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
export type Message =
  | { readonly kind: 'function-edge' | 'edge'; readonly text: string }
  | { readonly kind: 'source'; readonly text: string; readonly withEdge: boolean };

export const message: fc.Arbitrary<Message> = fc.oneof(
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
export function json(value: unknown): string {
  return JSON.stringify(value).replaceAll(`"${NEGATIVE_ZERO}"`, '-0');
}

function parsed(text: string, source: Source): LogEvent | null {
  const result = parse(text, source, { nowUs: NOW_US });
  return result.ok ? result.event : null;
}

export function logEvent(message: Message): LogEvent | null {
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
