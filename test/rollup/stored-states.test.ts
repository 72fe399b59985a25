/**
 * The states the rollups keep, as stored and read back: every malformed form is refused with a
 * message that quotes (the start of) what was found, every valid one is read exactly, and the
 * parts of a state no endpoint returns (status classes, zero and negative bins, the sorted bin
 * encoding) are kept as the contract says. Written from mutation testing's survivors (docs/TESTING.md).
 */
import { describe, expect, test, vi } from 'vitest';
import fc from 'fast-check';
import { hostMember, parseHostMember } from '../../src/rollup/keys.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import {
  fromSerialized,
  quantile,
  type QuantileSketch,
  quantileSketch,
  readSketch,
  toSerialized,
  writeSketch,
} from '../../src/rollup/quantiles.ts';
import { logPosition, parseRecentLog, RecentLogMembers } from '../../src/rollup/recent-logs.ts';
import { usageCounts } from '../../src/rollup/usage-counts.ts';
import { NewerStateFormatError, STATE_FORMATS } from '../../src/rollup/state-format.ts';
import { mergeParts, readStateOrReport } from '../../src/rollup/unreadable.ts';
import { SevenBitReader, SevenBitWriter } from '../../src/text/seven-bit.ts';
import { legacyInvocationJson } from './legacy-states.ts';
import { Buffer } from 'node:buffer';
import { parse } from '../../src/events/parse.ts';
import { edgeEvent } from '../fixtures/events.ts';

/** A JSON array of 60 numbers (121 characters): no valid state, and longer than a message quotes. */
const LONG_ARRAY = `[${Array.from({ length: 60 }, () => '7').join(',')}]`;

function sketchOf(values: readonly number[]): QuantileSketch {
  let sketch = quantileSketch.empty();
  for (const value of values) sketch = quantileSketch.add(sketch, value);
  return sketch;
}

describe('usage counts state', () => {
  test('reads 5 non-negative integers', () => {
    expect(usageCounts.deserialize('[9,1,2,3,4]')).toEqual({
      total: 9,
      rest: 1,
      storage: 2,
      auth: 3,
      realtime: 4,
    });
  });

  test.each(['[1,2,3,4]', '[1,2,3,4,-1]', '[1,2,3,4,1.5]', '[1,2,3,4,"5"]', '{}'])(
    'refuses %s',
    (text) => {
      expect(() => usageCounts.deserialize(text)).toThrow(
        `usage counts state must be 5 non-negative integers: got ${text}`,
      );
    },
  );

  test('quotes only the first 80 characters of a long state', () => {
    expect(() => usageCounts.deserialize(LONG_ARRAY)).toThrow(
      new Error(
        `usage counts state must be 5 non-negative integers: got ${LONG_ARRAY.slice(0, 80)}`,
      ),
    );
  });
});

describe('invocation stats state', () => {
  test('keeps the status classes 1xx..5xx, not returned but stored and merged', () => {
    const state = invocationStats.empty();
    for (const statusCode of [101, 200, 204, 302, 404, 500, 503, 99, 600, null]) {
      invocationStats.add(state, {
        projectRef: 'p',
        functionId: null,
        executionTimeMs: null,
        statusCode,
      });
    }
    expect(invocationStats.deserialize(invocationStats.serialize(state)).statusClasses).toEqual([
      1,
      2,
      1,
      1,
      2,
    ]);
    const merged = invocationStats.merge(
      invocationStats.deserialize(invocationStats.serialize(state)),
      state,
    );
    expect(invocationStats.deserialize(invocationStats.serialize(merged)).statusClasses).toEqual([
      2,
      4,
      2,
      2,
      4,
    ]);
    expect(merged.count).toBe(20);
    expect(merged.errorCount).toBe(8);
  });

  const valid = {
    n: 1,
    e: 0,
    s: [0, 1, 0, 0, 0],
    t: 0,
    sum: 0,
    min: null,
    max: null,
    q: { v: [] },
  };
  test.each([
    ['no count', JSON.stringify({ ...valid, n: undefined })],
    ['errors as text', JSON.stringify({ ...valid, e: '0' })],
    ['4 status classes', JSON.stringify({ ...valid, s: [0, 1, 0, 0] })],
    ['status classes not an array', JSON.stringify({ ...valid, s: 5 })],
    ['no timed count', JSON.stringify({ ...valid, t: undefined })],
    ['no sum', JSON.stringify({ ...valid, sum: undefined })],
  ])('refuses a state with %s', (_what, text) => {
    expect(() => invocationStats.deserialize(text)).toThrow(
      `invocation stats state is malformed: ${text.slice(0, 80)}`,
    );
  });

  test('reads a valid state back', () => {
    expect(invocationStats.deserialize(JSON.stringify(valid)).count).toBe(1);
  });
});

describe('a stored state of neither form', () => {
  test.each([
    ['null', 'byte 110'],
    ['', 'nothing'],
    // Text is read as its UTF-8 bytes, as a store gives them: U+0080 is 0xc2 0x80.
    ['\u0080', 'byte 194'],
  ])('%j is refused, with its first byte', (text, found) => {
    for (const aggregate of [usageCounts, invocationStats]) {
      expect(() => aggregate.deserialize(text)).toThrow(
        `a stored state must start with a format byte or JSON: got ${found}`,
      );
    }
  });

  test("one aggregate's state is refused by the other", () => {
    const usage = usageCounts.serialize(usageCounts.empty());
    expect(() => invocationStats.deserialize(usage)).toThrow(
      'invocation stats state must be in format 0x11: got 0x10',
    );
    const stats = invocationStats.serialize(invocationStats.empty());
    expect(() => usageCounts.deserialize(stats)).toThrow(
      'usage counts state must be in format 0x10: got 0x11',
    );
  });

  test("a newer version's format is not taken for corruption", () => {
    for (const format of [0x13, 0x1f]) {
      const text = `${String.fromCharCode(format)}\u0001\u0002`;
      for (const aggregate of [usageCounts, invocationStats]) {
        expect(() => aggregate.deserialize(text)).toThrow(NewerStateFormatError);
      }
      const report = vi.fn();
      expect(() => readStateOrReport(usageCounts, 'k', text, report)).toThrow(
        `a stored state is in format 0x${format.toString(16)}, written by a newer version`,
      );
      expect(() => mergeParts(invocationStats, 'k', [text], report)).toThrow(NewerStateFormatError);
      expect(report).not.toHaveBeenCalled();
    }
  });

  test.each([
    ['cut short', (text: string) => text.slice(0, -1), 'ends early'],
    ['with a byte after it', (text: string) => `${text}\u0000`, 'bytes after'],
    [
      'with a byte of 8 bits',
      (text: string) => `${text.slice(0, 2)}\u00c1${text.slice(3)}`,
      'not 7-bit',
    ],
  ])('a binary state %s is refused', (_what, change, reason) => {
    const usage = usageCounts.serialize({ total: 9, rest: 1, storage: 2, auth: 3, realtime: 3 });
    expect(() => usageCounts.deserialize(change(usage))).toThrow(reason);
    const state = invocationStats.empty();
    for (const ms of [5, 1.5, 70]) {
      invocationStats.add(state, {
        projectRef: 'p',
        functionId: null,
        executionTimeMs: ms,
        statusCode: 200,
      });
    }
    expect(() => invocationStats.deserialize(change(invocationStats.serialize(state)))).toThrow(
      reason,
    );
  });
});

describe('quantile sketch state', () => {
  test('the 101st value turns the exact list into bins; 100 stay exact, also when merged', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(sketchOf(hundred).kind).toBe('exact');
    expect(sketchOf([...hundred, 101]).kind).toBe('bins');
    const merge = (a: number, b: number) =>
      quantileSketch.merge(
        sketchOf(hundred.slice(0, a)),
        sketchOf(hundred.concat(hundred).slice(0, b)),
      ).kind;
    expect([merge(50, 50), merge(60, 41)]).toEqual(['exact', 'bins']);
  });

  test('bins are stored sorted, as gaps from the first', () => {
    const high = fromSerialized({ b: [0, [20, 1], []] });
    const low = fromSerialized({ b: [0, [10, 2], []] });
    expect(toSerialized(quantileSketch.merge(high, low))).toEqual({ b: [0, [10, 2, 10, 1], []] });
  });

  test('zeros and negative values are kept in bins mode and merged', () => {
    const zeros = sketchOf([...Array.from({ length: 100 }, () => 0), 5]);
    expect(zeros.kind).toBe('bins');
    // Rank ceil(0.99 * 101) = 100 is still a zero.
    expect(quantile(zeros, 0.99)).toBe(0);
    const merged = quantileSketch.merge(zeros, sketchOf(Array.from({ length: 101 }, () => 0)));
    expect(quantile(merged, 0.99)).toBe(0);
    const negatives = sketchOf(Array.from({ length: 101 }, (_, i) => -(i + 1)));
    const both = quantileSketch.merge(negatives, sketchOf(Array.from({ length: 101 }, () => -1)));
    expect(toSerialized(both)).toMatchObject({ b: [0, [], expect.any(Array)] });
    // 202 values, 102 of them -1: the 95th percentile is -1 within the sketch's accuracy.
    expect(Math.abs((quantile(both, 0.95) ?? 0) + 1)).toBeLessThanOrEqual(0.005);
  });

  test('a value of exactly a nanosecond is binned, not taken as zero', () => {
    const tiny = sketchOf(Array.from({ length: 101 }, () => 1e-6));
    expect(Math.abs((quantile(tiny, 0.99) ?? 0) - 1e-6) / 1e-6).toBeLessThanOrEqual(0.005);
  });

  test('an empty bins sketch has no quantile', () => {
    expect(quantile(fromSerialized({ b: [0, [], []] }), 0.99)).toBeNull();
    expect(quantile(fromSerialized({ b: [2, [], []] }), 0.99)).toBe(0);
  });

  test.each([
    ['a value that is not a number', { v: [1, null] }],
    ['a value as text', { v: [1, '2'] }],
    ['two bin lists', { b: [0, []] }],
    ['four bin lists', { b: [0, [], [], []] }],
    ['a zero count as text', { b: ['0', [], []] }],
  ])('refuses a sketch with %s', (_what, form) => {
    expect(() => fromSerialized(form)).toThrow(
      `quantile sketch must be {"v": [numbers]} or {"b": [zero, bins, bins]}: got ${
        JSON.stringify(form)
      }`,
    );
  });

  test.each([
    ['an odd number of entries', [1, 2, 3], 'sketch bins must come in (bin, count) pairs'],
    ['a zero count', [1, 0], 'sketch bins must be integers with positive counts: got 1, 0'],
    ['a negative count', [1, -2], 'sketch bins must be integers with positive counts: got 1, -2'],
    ['a fractional bin', [1.5, 2], 'sketch bins must be integers with positive counts: got 1.5, 2'],
    [
      'a fractional count',
      [1, 2.5],
      'sketch bins must be integers with positive counts: got 1, 2.5',
    ],
  ])('refuses bins with %s', (_what, bins, message) => {
    expect(() => fromSerialized({ b: [0, bins, []] })).toThrow(message);
    expect(() => fromSerialized({ b: [0, [], bins] })).toThrow(message);
  });

  test('quotes only the first 80 characters of a long malformed sketch', () => {
    const form = { v: Array.from({ length: 40 }, () => 'x') };
    expect(() => fromSerialized(form)).toThrow(
      new Error(
        'quantile sketch must be {"v": [numbers]} or {"b": [zero, bins, bins]}: got ' +
          JSON.stringify(form).slice(0, 80),
      ),
    );
  });
});

describe('stored text, built by hand', () => {
  const time = fc.oneof(
    fc.constant(null),
    fc.constant(0),
    // -0 is written as 0, as JSON.stringify writes it: read back, it is 0.
    fc.double({ min: -1e-3, max: 1e6, noNaN: true }).map((value) => value === 0 ? 0 : value),
    fc.integer({ min: 0, max: 600_000 }),
  );
  const invocation = fc.record({
    projectRef: fc.constant('p'),
    functionId: fc.constant(null),
    executionTimeMs: time,
    statusCode: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 999 })),
  });

  const states = fc.array(invocation, { maxLength: 260 }).map((invocations) => {
    let state = invocationStats.empty();
    for (const one of invocations) state = invocationStats.add(state, one);
    return state;
  });

  test('is read back exactly, in exact and bins mode, and every byte is below 0x80', () => {
    fc.assert(
      fc.property(states, (state) => {
        const text = invocationStats.serialize(state);
        expect(text.charCodeAt(0)).toBe(0x11);
        expect([...text].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
        expect(invocationStats.deserialize(text)).toEqual(state);
        expect(invocationStats.headCount(text)).toBe(state.count);
      }),
      { numRuns: 200 },
    );
  });

  test('the JSON an earlier version stored is read back exactly, in exact and bins mode', () => {
    fc.assert(
      fc.property(states, (state) => {
        const json = legacyInvocationJson(state);
        expect(invocationStats.deserialize(json)).toEqual(state);
        expect(invocationStats.headCount(json)).toBe(state.count);
      }),
      { numRuns: 200 },
    );
  });

  /** A double as `real` writes it: its mark, then its 64 bits in groups of six, lowest first. */
  function double(value: number): number[] {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value);
    const bits = view.getBigUint64(0);
    return [1, ...Array.from({ length: 11 }, (_, i) => Number((bits >> BigInt(6 * i)) & 63n))];
  }

  test('an invocation stats state is its format byte, counts, times and sketch', () => {
    const state = invocationStats.empty();
    for (const [executionTimeMs, statusCode] of [[70, 200], [2.5, 503], [null, 404]] as const) {
      invocationStats.add(state, {
        projectRef: 'p',
        functionId: null,
        executionTimeMs,
        statusCode,
      });
    }
    // An integer `real` is the varint of 4 × n (n ≥ 0): 70 is 280, in two bytes.
    const seventy = [(280 % 64) | 0x40, Math.floor(280 / 64)];
    expect([...invocationStats.serialize(state)].map((c) => c.charCodeAt(0))).toEqual([
      0x11, // the format
      ...[3, 2], // count, errors
      ...[0, 1, 0, 1, 1], // 1xx to 5xx
      2, // timed count
      ...double(72.5), // sum
      3, // min and max follow
      ...double(2.5), // min
      ...seventy, // max
      ...[1, 2], // the sketch: two exact values, not all integers
      ...double(2.5),
      ...seventy,
    ]);
  });

  test('an exact sketch of integers is delta-coded; bins are a first bin and gaps', () => {
    const out = new SevenBitWriter();
    writeSketch(out, sketchOf([100, 3, 7]));
    // Layout 0, three values: 3 as a real (4 × 3 = 12), then the gaps 4 and 93.
    expect([...out.text()].map((c) => c.charCodeAt(0))).toEqual([0, 3, 12, 4, (93 % 64) | 0x40, 1]);
    const bins = sketchOf([...Array.from({ length: 100 }, () => 1), 0, -1, 1.02]);
    if (bins.kind !== 'bins') throw new Error('expected bins');
    writeSketch(out, bins);
    const text = out.text();
    // Layout 2, one zero; positive: 2 bins, the first 0 (zigzag 0) with 100, then a gap of 2
    // (1.02 is in bin ceil(log 1.02 / log γ) = 2) with 1; negative: 1 bin, 0, with 1.
    expect([...text].map((c) => c.charCodeAt(0))).toEqual([
      2,
      1,
      2,
      0,
      (100 % 64) | 0x40,
      1,
      2,
      1,
      1,
      0,
      1,
    ]);
    expect(readSketch(new SevenBitReader(text))).toEqual(bins);
  });

  test('a sketch read and written again, then given a value in a new bin, is written whole', () => {
    const values = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? i : -i));
    const sketch = sketchOf(values);
    const before = quantileSketch.serialize(sketch);
    // Reading (negatives are walked in reverse) and writing leave the sorted order as it was.
    expect(quantile(sketch, 0.01)).toBe(quantile(sketchOf(values), 0.01));
    expect(quantileSketch.serialize(sketch)).toBe(before);
    const more = quantileSketch.add(quantileSketch.add(sketch, 1e5), -1e5);
    expect(quantileSketch.serialize(more)).toBe(
      quantileSketch.serialize(sketchOf([...values, 1e5, -1e5])),
    );
    expect(quantileSketch.serialize(more)).not.toBe(before);
  });

  test('usage counts are their format byte and five counts, one byte each up to 63', () => {
    const state = { total: 70, rest: 3, storage: 0, auth: 63, realtime: 1 };
    expect(usageCounts.serialize(state)).toBe('\x10\x46\x01\x03\x00\x3f\x01');
    expect(usageCounts.deserialize(usageCounts.serialize(state))).toEqual(state);
    expect(usageCounts.headCount(usageCounts.serialize(state))).toBe(70);
    expect(usageCounts.headCount(usageCounts.serialize(state).slice(0, 2))).toBeNull();
  });
});

describe('recent log members', () => {
  const UTF8 = new TextEncoder();
  const STREAM = 'logs.edge/0';
  const event = edgeEvent({ at: 1_795_256_130_000_000, id: 'entry', message: 'GET | 200' });
  const { member } = new RecentLogMembers(STREAM).of(event, 7);

  /**
   * The member an edge event with this (compact) JSON text is stored as, built independently:
   * the head's text, the row form's byte, and the row's fields as `JSON.stringify` writes them.
   */
  function expectedMember(json: string, offset: number): Uint8Array {
    const { id, timestamp, event_message: message, metadata } = JSON.parse(json) as {
      id: string;
      timestamp: number;
      event_message?: unknown;
      metadata: unknown[];
    };
    const head = `${id}\u0000${logPosition(STREAM, offset)}\u0000${timestamp}\u0000`;
    const row = `{"id":${JSON.stringify(id)},"timestamp":${timestamp},"event_message":${
      typeof message === 'string' ? JSON.stringify(message) : 'null'
    },"metadata":${JSON.stringify(metadata)}}`;
    return Buffer.concat([
      UTF8.encode(head),
      Uint8Array.of(STATE_FORMATS.recentLogRowV1),
      UTF8.encode(row),
    ]);
  }

  test('read back as written', () => {
    expect(member).toBeInstanceOf(Uint8Array);
    expect(parseRecentLog(member as Uint8Array)).toMatchObject({
      id: 'entry',
      timestampUs: 1_795_256_130_000_000,
      eventMessage: 'GET | 200',
    });
  });

  // A Kafka message's value: text with characters of 2, 3 and 4 UTF-8 bytes.
  const text = JSON.stringify({
    id: 'entrée-✓',
    timestamp: 1_795_256_130_000_000,
    project: 'abcdefghijklmnopqrst',
    event_message: 'GET | 200 😀',
    metadata: [{ request: [{ host: 'abcdefghijklmnopqrst.supabase.co', path: '/rest/v1/ü' }] }],
  });
  const nowUs = 1_795_256_130_000_000;
  const members = new RecentLogMembers(STREAM);

  test.each([
    ['as they are', UTF8.encode(text)],
    ['after a byte-order mark, which the text leaves out too', UTF8.encode(`\uFEFF${text}`)],
  ])('an event that arrived as bytes, or as text, gives its row form: %s', (_how, bytes) => {
    const fromBytes = parse(bytes, 'edge', { nowUs });
    const fromText = parse(text, 'edge', { nowUs });
    if (!fromBytes.ok || fromBytes.event.source !== 'edge') throw new Error('bytes rejected');
    if (!fromText.ok || fromText.event.source !== 'edge') throw new Error('text rejected');
    for (const written of [members.of(fromBytes.event, 42), members.of(fromText.event, 42)]) {
      expect(Buffer.from(written.member).equals(expectedMember(text, 42))).toBe(true);
      expect(parseRecentLog(written.member as Uint8Array)).toMatchObject({
        id: 'entrée-✓',
        eventMessage: 'GET | 200 😀',
      });
    }
  });

  // The head's numbers are written as digits, in place: each offset (the last two have no 16
  // digits of position, so their position is written as text) and a message too large for the
  // slab gives the member built independently.
  const large = JSON.stringify({ ...JSON.parse(text), event_message: 'x'.repeat(20_000) });
  test.each([
    [0, text],
    [7, text],
    [Number.MAX_SAFE_INTEGER, text],
    [2 ** 53 + 2, text],
    [-1, text],
    [42, large],
  ])(
    'the member of an event at offset %d is its head, its form and its row, byte for byte',
    (offset, json) => {
      const fromBytes = parse(UTF8.encode(json), 'edge', { nowUs });
      if (!fromBytes.ok || fromBytes.event.source !== 'edge') throw new Error('bytes rejected');
      const written = members.of(fromBytes.event, offset).member;
      expect(Buffer.from(written).equals(expectedMember(json, offset))).toBe(true);
    },
  );

  // The head written in place, at its edges: a timestamp whose digits start with 1 and zeros,
  // ids whose first character is U+0080 or not ASCII at all.
  test.each([
    [1_000_000_000_000_000, 'x'],
    [1_000_000_000_000_000, '\u0080x'],
    [1_795_256_130_000_000, 'ü-first'],
    [1_795_256_130_000_000, 'ascii-then-\u0080'],
  ])('a member at %d with id %j is its head, its form and its row', (at, id) => {
    const event = edgeEvent({ at, id });
    for (
      const written of [
        members.of({ ...event, rawBytes: UTF8.encode(event.raw) }, 9),
        members.of(event, 9),
      ]
    ) {
      expect(Buffer.from(written.member).equals(expectedMember(event.raw, 9))).toBe(true);
    }
  });

  test.each([
    ['no separators', 'just text'],
    ['no timestamp field', `entry\u0000${JSON.stringify({ id: 'x', metadata: [] })}`],
    ['a timestamp that is not an integer', `entry\u0000p\u00001.5\u0000{"id":"x","metadata":[]}`],
    ['an event that is not an object', `entry\u0000p\u00001\u0000"text"`],
    ['an event that is null', `entry\u0000p\u00001\u0000null`],
    ['an event without an id', `entry\u0000p\u00001\u0000{"metadata":[]}`],
    ['an event with a numeric id', `entry\u0000p\u00001\u0000{"id":1,"metadata":[]}`],
    ['an event without metadata', `entry\u0000p\u00001\u0000{"id":"x"}`],
    ['an empty member', ''],
  ])('refuses a member with %s', (_what, text) => {
    expect(() => parseRecentLog(UTF8.encode(text))).toThrow(
      `recent log member is malformed: ${text.slice(0, 80)}`,
    );
  });

  test('a long malformed member is quoted to its first 80 characters only (it may hold personal data)', () => {
    const long = `entry\u0000p\u00001\u0000{"id":1,"event_message":"${'p'.repeat(200)}"}`;
    expect(() => parseRecentLog(UTF8.encode(long))).toThrow(
      new Error(`recent log member is malformed: ${long.slice(0, 80)}`),
    );
  });

  test('a leading separator is not an empty entry', () => {
    expect(() => parseRecentLog(UTF8.encode(`\u0000${JSON.stringify({ id: 'x', metadata: [] })}`)))
      .toThrow(
        /recent log member is malformed/,
      );
  });
});

describe('host registry members', () => {
  test('read back as written; anything else is not ours', () => {
    expect(parseHostMember(hostMember('p', 'h.example'))).toEqual({
      project: 'p',
      host: 'h.example',
    });
    for (const member of ['["p"]', '["p","h","x"]', '[1,"h"]', '["p",2]', '{}', 'x']) {
      expect(parseHostMember(member), member).toBeNull();
    }
  });
});
