/**
 * Every answer written as bytes (rows straight into one buffer, `logs.all` rows copied from their
 * stored form) is byte for byte what the rows read as values and serialized by `JSON.stringify`
 * give: every endpoint, interval and tier, with and without a function, and within every kind of
 * limit (row cap, byte cap inside a row, a frame alone over the cap). Where an answer gives the
 * values it was written from (its digest, which its entity tag is taken from), the digest and its
 * row count name its bytes: the same name never stands for two bodies.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, test } from 'vitest';
import {
  answerEndpoint,
  answerEndpointJson,
  type AnswerOptions,
  framedRows,
  type RowsJson,
} from '../../src/endpoints/registry.ts';
import type { EndpointName } from '../../src/contract/registry.ts';
import { PROJECT_TIERS } from '../../src/contract/tiers.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { INVOCATION_INTERVALS, USAGE_INTERVALS } from '../../src/time/series.ts';

const NOW_US = 1_795_000_000_000_000;
const FRAME = { before: '{"result":', after: '}' };

/** A store holding 20,000 generated events of the hour before now, and its busiest projects. */
async function loaded() {
  const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
  const ingest = new DirectIngest({ store, nowUs: () => NOW_US });
  const events: LogEvent[] = [];
  const functions = new Map<string, string>();
  for (
    const { source, line } of generateEvents({
      seed: 52,
      events: 20_000,
      nowUs: NOW_US,
      projects: 20,
    })
  ) {
    const result = parse(line, source, { nowUs: NOW_US });
    if (!result.ok) continue;
    events.push(result.event);
    if (result.event.source === 'function-edge') {
      const functionId = (JSON.parse(line) as { metadata: { function_id: string }[] }).metadata[0]
        ?.function_id;
      if (functionId !== undefined) functions.set(result.event.project, functionId);
    }
  }
  await ingest.fold(events);
  return { store, projects: [...functions.keys()].slice(0, 2), functions };
}

/** The answer as bytes, and as the rows read as values then serialized. */
async function both(
  store: MemoryStore,
  name: EndpointName,
  query: string,
  options: AnswerOptions,
  nowUs: number,
) {
  const context = { store, nowUs, maxFutureSkewUs: 300_000_000 };
  const params = new URLSearchParams(query);
  const bytes = await answerEndpointJson(name, params, context, { ...options, frame: FRAME });
  const values = await answerEndpoint(name, params, context, options);
  if (!bytes.ok || !values.ok) throw new Error(`${name} ${query} refused`);
  const old = framedRows(
    values.rows.map((row) => JSON.stringify(row)),
    FRAME,
    options.maxBytes ?? Infinity,
  );
  return { bytes, old, rows: values.rows.length };
}

describe('answers as bytes are the answers as values, serialized', () => {
  test('every endpoint, interval and tier, within every kind of limit', async () => {
    const { store, projects, functions } = await loaded();
    const queries: [EndpointName, string][] = [];
    for (const project of projects) {
      for (const interval of Object.keys(INVOCATION_INTERVALS)) {
        queries.push(['functions.invocation-stats', `project=${project}&interval=${interval}`]);
        queries.push([
          'functions.invocation-stats',
          `project=${project}&interval=${interval}&function_id=${functions.get(project)}`,
        ]);
      }
      for (const interval of Object.keys(USAGE_INTERVALS)) {
        queries.push(['usage.api-counts', `project=${project}&interval=${interval}`]);
      }
      for (const tier of PROJECT_TIERS) {
        queries.push(['logs.all', `project=${project}&project_tier=${tier}`]);
      }
    }
    let compared = 0;
    let nonEmpty = 0;
    // An answer's digest (where its endpoint gives one) and row count name its bytes exactly.
    const byDigest = new Map<string, string>();
    const digests = new Set<string>();
    const withDigest = new Set<EndpointName>();
    const named = (name: EndpointName, query: string, answer: RowsJson) => {
      if (answer.digest === undefined) return;
      withDigest.add(name);
      const key = `${name} ${query} ${Buffer.from(answer.digest).toString('hex')} ${answer.rows}`;
      const body = `${name} ${query} ${Buffer.from(answer.json).toString('hex')}`;
      expect(byDigest.get(key) ?? body, key).toBe(body);
      byDigest.set(key, body);
      digests.add(key);
    };
    // Now, and 37.5 s later (buckets not on the answer's own boundaries).
    for (const nowUs of [NOW_US, NOW_US + 37_500_000]) {
      for (const [name, query] of queries) {
        const whole = await both(store, name, query, {}, nowUs);
        named(name, query, whole.bytes);
        expect(whole.bytes.json, `${name} ${query}`).toEqual(whole.old.json);
        expect(whole.bytes.truncated).toBe(false);
        if (whole.rows > 0) nonEmpty++;
        const size = whole.bytes.json.length;
        const limits: AnswerOptions[] = [
          { maxRows: 1 },
          { maxRows: 7 },
          { maxBytes: Math.floor(size / 2) },
          { maxBytes: size - 1 },
          { maxBytes: size },
          { maxBytes: 5 },
          { maxRows: 3, maxBytes: Math.floor(size / 3) },
        ];
        for (const limit of limits) {
          const { bytes, old } = await both(store, name, query, limit, nowUs);
          named(name, query, bytes);
          const what = `${name} ${query} ${JSON.stringify(limit)}`;
          expect(new TextDecoder().decode(bytes.json), what).toBe(
            new TextDecoder().decode(old.json),
          );
          expect({ rows: bytes.rows, truncated: bytes.truncated }, what).toEqual({
            rows: old.rows,
            truncated: old.truncated,
          });
          compared++;
        }
      }
    }
    // The comparisons saw rows, not only empty answers.
    expect(nonEmpty).toBeGreaterThan(queries.length);
    expect(compared).toBe(2 * queries.length * 7);
    // invocation-stats and logs.all give digests: many answers were named by one.
    expect([...withDigest].sort()).toEqual(['functions.invocation-stats', 'logs.all']);
    expect(digests.size).toBeGreaterThan(100);
  }, 60_000);
});
