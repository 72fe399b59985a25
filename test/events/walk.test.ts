/**
 * The walk (`src/events/walk.ts`, `parse`'s fast path) against the full path alone
 * (`parseFully`): over generated events, the generator's invalid ones and events mutated field by
 * field at every place the schema names (every bound and one past it, wrong types, lone
 * surrogates, code points beyond UTF-16 bounds, depth 32 and 33, 16 and 17 hosts, URLs), `parse`
 * gives exactly what the full path gives: the same event, field for field, or the same rejection,
 * word for word. And the walk is not idle: it proves nearly every valid event itself.
 *
 * `WALK_EVENTS` sets how many generated events (default 100,000, about 8 s).
 * `WALK_EVENTS=1000000 npx vitest run test/events/walk.test.ts` (2026-11-28, 84 s): 950,089 valid events,
 * every one proved by the walk, 49,911 invalid and 950,089 mutated ones (550,448 proved by the walk),
 * each with the full path's verdict.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { parse, parseFully } from '../../src/events/parse.ts';
import { isJsonObject, type Json, type JsonObject, type Source } from '../../src/events/types.ts';
import { walkEdge, walkFunctionEdge } from '../../src/events/walk.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { INVALID_KINDS, invalidLine } from '../../src/synthetic/invalid.ts';
import { Random } from '../../src/synthetic/random.ts';

const NOW_US = 1_795_256_130_123_456;
const OPTIONS = { nowUs: NOW_US, maxFutureSkewUs: 300_000_000 };
const EVENTS = Number(process.env['WALK_EVENTS'] ?? 100_000);

const deep = (levels: number): Json => {
  let value: Json = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

/** Values at and around every bound the schema and the walk know. */
const VALUES: readonly Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  99,
  100,
  599,
  600,
  200.0,
  1e9,
  1e9 + 1,
  -0,
  '',
  'x',
  '1795256130123456',
  '2026-11-21T10:15:00Z',
  'a'.repeat(128),
  'a'.repeat(129),
  'a'.repeat(256),
  'a'.repeat(257),
  'a'.repeat(1024),
  'a'.repeat(1025),
  'a'.repeat(8192),
  'a'.repeat(8193),
  '\u{1F600}'.repeat(128), // 256 units, 128 code points
  '\u{1F600}'.repeat(129),
  '\u{1F600}'.repeat(512), // 1,024 units: a host at its bound in both counts
  '\u{1F600}'.repeat(513), // 1,026 units, 513 code points: within 1,024 code points
  'p\ud800',
  '\udc00',
  [],
  {},
  [{}],
  deep(30),
  deep(31),
  deep(32),
  `https://${'h'.repeat(1100)}.example/p`,
  'https://abc.supabase.co/rest/v1/t?x=1',
  'not a url',
  'https://\u{1F600}.example/',
  Array.from({ length: 65 }, () => ({})),
  Array.from({ length: 17 }, (_, i) => ({ host: `h${i}.example` })),
  Array.from({ length: 16 }, (_, i) => ({ host: `h${i}.example` })),
  Array.from({ length: 17 }, (_, i) => ({ url: `https://u${i}.example/x` })),
];

const TOP = ['id', 'timestamp', 'project', 'event_message', 'metadata'];
const ENTRY = ['project_ref', 'function_id', 'execution_time_ms', 'request', 'response', 'x'];
const REQUEST = ['host', 'path', 'url', 'method'];

/** `event` with one place set to one of {@link VALUES} (or removed), chosen by `random`. */
function mutated(event: JsonObject, random: Random): Json {
  const copy = structuredClone(event);
  const value = random.chance(0.1) ? undefined : random.pick(VALUES);
  const set = (object: JsonObject, key: string) => {
    if (value === undefined) delete object[key];
    else object[key] = structuredClone(value);
  };
  const metadata = Array.isArray(copy['metadata']) ? copy['metadata'] : [];
  const entry = metadata[random.int(Math.max(metadata.length, 1))];
  const place = random.int(6);
  if (place === 0 || !isJsonObject(entry)) set(copy, random.pick(TOP));
  else if (place <= 2) set(entry, random.pick(ENTRY));
  else {
    const list = entry[random.chance(0.5) ? 'request' : 'response'];
    const item = Array.isArray(list) ? list[random.int(Math.max(list.length, 1))] : undefined;
    if (!isJsonObject(item)) set(entry, random.pick(ENTRY));
    else set(item, random.chance(0.5) ? random.pick(REQUEST) : 'status_code');
  }
  if (random.chance(0.05)) metadata.push(structuredClone(metadata[0] ?? {}));
  return random.chance(0.02) ? [copy] : copy;
}

/** Both paths over one message; true when the walk proved it itself. */
function compare(text: string, source: Source, asBytes: boolean): boolean {
  const message = asBytes ? new TextEncoder().encode(text) : text;
  const fast = parse(message, source, OPTIONS);
  const full = parseFully(message, source, OPTIONS);
  // Node's strict deep equality (fast; -0 is not 0), then vitest's for a readable difference.
  if (!isDeepStrictEqual(fast, full)) expect(fast, text.slice(0, 500)).toStrictEqual(full);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return (source === 'edge' ? walkEdge(value) : walkFunctionEdge(value)) !== null;
}

describe('the walk against the full path', () => {
  test(`${EVENTS} generated events, valid and invalid, and as many mutated`, () => {
    const random = new Random(48);
    const seen = { valid: 0, walked: 0, mutated: 0, mutatedWalked: 0, invalid: 0 };
    for (
      const { source, line, invalid } of generateEvents({
        seed: 48,
        events: EVENTS,
        nowUs: NOW_US,
        invalid: 0.05,
      })
    ) {
      const walked = compare(line, source, random.chance(0.5));
      if (invalid === null) {
        seen.valid += 1;
        if (walked) seen.walked += 1;
        const event: Json = JSON.parse(line);
        if (!isJsonObject(event)) throw new Error('a generated event is an object');
        const changed = JSON.stringify(mutated(event, random));
        if (compare(changed, source, false)) seen.mutatedWalked += 1;
        seen.mutated += 1;
      } else seen.invalid += 1;
    }
    // Every kind of invalid line, for each source.
    const sample = [...generateEvents({ seed: 7, events: 40, nowUs: NOW_US })];
    for (const source of ['edge', 'function-edge'] as const) {
      const base = sample.find((line) => line.source === source)?.line ?? '{}';
      for (const kind of INVALID_KINDS) {
        for (let i = 0; i < 20; i++) {
          compare(invalidLine(random, kind, source, base, NOW_US), source, false);
        }
      }
    }
    console.log(
      `walk: ${seen.walked} of ${seen.valid} valid events proved by the walk; ` +
        `${seen.mutatedWalked} of ${seen.mutated} mutated ones; ${seen.invalid} invalid`,
    );
    expect(seen.walked / seen.valid).toBeGreaterThan(0.99);
    // The mutations reach both sides of the walk's decisions.
    expect(seen.mutatedWalked).toBeGreaterThan(seen.mutated * 0.05);
    expect(seen.mutatedWalked).toBeLessThan(seen.mutated * 0.95);
  }, 300_000);

  test.each<[string, Source, JsonObject]>([
    ['a host of 513 astral characters (1,026 units) is left to the full path', 'edge', {
      id: 'a',
      timestamp: NOW_US,
      project: 'p',
      metadata: [{ request: [{ host: '\u{1F600}'.repeat(513) }] }],
    }],
    ['entries naming different projects are left to the full path', 'function-edge', {
      id: 'a',
      timestamp: NOW_US,
      metadata: [{ project_ref: 'p', response: [{}] }, { project_ref: 'q' }],
    }],
  ])('%s', (_, source, event) => {
    const text = JSON.stringify(event);
    expect(source === 'edge' ? walkEdge(event) : walkFunctionEdge(event)).toBeNull();
    expect(parse(text, source, OPTIONS)).toEqual(parseFully(text, source, OPTIONS));
  });
});
