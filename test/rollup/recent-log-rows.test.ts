/**
 * A `logs.all` row copied out of a stored entry's bytes (`writeRecentLogRow`, what the HTTP API
 * sends) and the entry read as values (`parseRecentLog`, what PII redaction reads) are the row
 * that `JSON.parse` of the event's text gives, for any event text: spacing, escaped keys, a field
 * given twice, fields in any order, an `event_message` of any kind; a cut or corrupt entry is
 * refused by both. An entry written in the row form gives byte for byte the row of its text
 * stored as the version before stored it.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Buffer } from 'node:buffer';
import type { EdgeEvent } from '../../src/events/types.ts';
import {
  logPosition,
  parseRecentLog,
  RecentLogMembers,
  ROW_EXTRA_BYTES,
  sameEntry,
  writeRecentLogRow,
} from '../../src/rollup/recent-logs.ts';
import { NewerStateFormatError, STATE_FORMATS } from '../../src/rollup/state-format.ts';
import { fieldNames, topLevelFields } from '../../src/text/json-fields.ts';

const SEPARATOR = '\u0000';
const UTF8 = new TextEncoder();
const DECODER = new TextDecoder();

/**
 * The row `writeRecentLogRow` writes for a member's text, after 3 bytes already in the output:
 * from a plain Uint8Array (the memory store) and from a Buffer (Redis), which must agree.
 */
function recentLogRowJson(text: string): string {
  const rows = [UTF8.encode(text), Buffer.from(text)].map((member) => {
    const out = new Uint8Array(3 + member.length + ROW_EXTRA_BYTES);
    const end = writeRecentLogRow(member, out, 3);
    return DECODER.decode(out.subarray(3, end));
  });
  expect(rows[1]).toBe(rows[0]);
  return rows[0] ?? '';
}

function member(id: string, timestampUs: number, raw: string): string {
  return `${id}${SEPARATOR}0000000000000001@s/0${SEPARATOR}${timestampUs}${SEPARATOR}${raw}`;
}

/**
 * The row of a member's text read independently of the code under test: the event text after
 * the last separator parsed by `JSON.parse`, the timestamp between the last two. Throws where
 * there is no row.
 */
function rowOf(text: string) {
  const rawStart = text.lastIndexOf(SEPARATOR);
  const timestampStart = rawStart <= 0 ? -1 : text.lastIndexOf(SEPARATOR, rawStart - 1);
  const timestampText = text.slice(timestampStart + 1, rawStart);
  const timestamp = Number(timestampText);
  const event: unknown = JSON.parse(text.slice(rawStart + 1));
  if (
    timestampStart < 0 || !Number.isSafeInteger(timestamp) || String(timestamp) !== timestampText ||
    event === null || typeof event !== 'object' || Array.isArray(event)
  ) throw new Error(`no row: ${text}`);
  const { id, event_message: message, metadata } = event as Record<string, unknown>;
  if (typeof id !== 'string' || !Array.isArray(metadata)) throw new Error(`no row: ${text}`);
  return { id, timestamp, event_message: typeof message === 'string' ? message : null, metadata };
}

/** `parseRecentLog` of a member's text, as a row. */
function valuesOf(text: string) {
  const entry = parseRecentLog(UTF8.encode(text));
  return {
    id: entry.id,
    timestamp: entry.timestampUs,
    event_message: entry.eventMessage,
    metadata: entry.metadata,
  };
}

/** JSON text of an object's fields in the given order, spaced as asked, keys maybe escaped. */
function objectText(
  fields: readonly (readonly [string, unknown])[],
  space: string,
  escapeKeys: boolean,
): string {
  const key = (name: string) =>
    escapeKeys
      ? `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
      : JSON.stringify(name);
  const body = fields.map(([name, value]) =>
    `${space}${key(name)}${space}:${space}${
      JSON.stringify(value, null, space === '' ? undefined : space)
    }`
  );
  return `{${body.join(`,${space}`)}${space}}`;
}

const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), {
  maxKeys: 4,
});

/** Any event text with a row: fields in any order and spacing, escaped keys, decoys, extras. */
const eventSpec = fc.record({
  id: fc.string({ maxLength: 12, unit: 'binary' }),
  timestampUs: fc.integer({ min: -1e15, max: 4e15 }),
  message: fc.option(
    fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 2 })),
    { nil: undefined },
  ),
  metadata: fc.array(jsonObject, { maxLength: 3 }),
  decoyMetadata: fc.option(fc.array(jsonObject, { maxLength: 1 }), { nil: undefined }),
  extra: fc.array(
    fc.tuple(fc.constantFrom('project', 'timestamp', 'x', 'm\\e'), fc.jsonValue({ maxDepth: 2 })),
    { maxLength: 3 },
  ),
  space: fc.constantFrom('', ' ', '\n  ', '\t'),
  escapeKeys: fc.boolean(),
  order: fc.integer({ min: 0, max: 5 }),
});

function eventText(spec: typeof eventSpec extends fc.Arbitrary<infer T> ? T : never): string {
  const fields: [string, unknown][] = [
    ...(spec.decoyMetadata === undefined
      ? []
      : [['metadata', spec.decoyMetadata] as [string, unknown]]),
    ['id', spec.id],
    ...spec.extra,
    ...(spec.message === undefined ? [] : [['event_message', spec.message] as [string, unknown]]),
  ];
  fields.splice(spec.order % (fields.length + 1), 0, ['metadata', spec.metadata]);
  return objectText(fields, spec.space, spec.escapeKeys);
}

/**
 * The member the writer stores for an edge event with this text (as bytes or as text only) at
 * offset 1 of stream `s/0`.
 */
function eventOf(id: string, timestampUs: number, raw: string, asBytes = false): EdgeEvent {
  return {
    source: 'edge',
    id,
    timestampUs,
    raw,
    ...(asBytes ? { rawBytes: UTF8.encode(raw) } : {}),
  } as unknown as EdgeEvent;
}

function writtenMember(id: string, timestampUs: number, raw: string, asBytes: boolean): Uint8Array {
  const event = eventOf(id, timestampUs, raw, asBytes);
  const { member: written } = new RecentLogMembers('s/0').of(event, 1);
  if (typeof written === 'string') throw new Error('an edge entry is written as bytes');
  return written;
}

/** The row `writeRecentLogRow` copies out of a member's bytes. */
function rowBytes(member: Uint8Array): string {
  const out = new Uint8Array(member.length + ROW_EXTRA_BYTES);
  return DECODER.decode(out.subarray(0, writeRecentLogRow(member, out, 0)));
}

describe('an entry stored in the row form', () => {
  test('gives byte for byte the row its event text gave, stored as text, for any event', () => {
    fc.assert(
      fc.property(eventSpec, fc.boolean(), (spec, asBytes) => {
        const raw = eventText(spec);
        const written = writtenMember(spec.id, spec.timestampUs, raw, asBytes);
        // The format byte follows the head's last separator (JSON text holds no NUL).
        expect(written[written.lastIndexOf(0) + 1]).toBe(STATE_FORMATS.recentLogRowV1);
        const asText = member(spec.id, spec.timestampUs, raw);
        expect(rowBytes(written)).toBe(recentLogRowJson(asText));
        expect(parseRecentLog(written)).toEqual(parseRecentLog(UTF8.encode(asText)));
        // Both forms hold the same event; another offset or id is another event.
        const textForm = UTF8.encode(
          `${spec.id}${SEPARATOR}${
            logPosition('s/0', 1)
          }${SEPARATOR}${spec.timestampUs}${SEPARATOR}${raw}`,
        );
        expect(sameEntry(textForm, written)).toBe(true);
        expect(sameEntry(written, textForm)).toBe(true);
        const other = new RecentLogMembers('s/0').of(
          { ...eventOf(spec.id, spec.timestampUs, raw) },
          2,
        );
        expect(sameEntry(written, other.member as Uint8Array)).toBe(false);
        const otherId = writtenMember(`${spec.id}x`, spec.timestampUs, raw, asBytes);
        expect(sameEntry(written, otherId)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  test('an event whose text gives no row keeps its text, as before', () => {
    const written = writtenMember('a', 5, '{"id":"a","metadata":{}}', true);
    expect(DECODER.decode(written).endsWith('\u00005\u0000{"id":"a","metadata":{}}')).toBe(true);
    expect(() => rowBytes(written)).toThrow('recent log member is malformed');
  });

  test('a cut or altered row is refused; a newer format waits for an upgrade', () => {
    const written = writtenMember('a', 5, '{"id":"a","event_message":"m","metadata":[]}', true);
    const formatAt = written.lastIndexOf(0) + 1;
    expect(written[formatAt]).toBe(STATE_FORMATS.recentLogRowV1);
    expect(rowBytes(written)).toBe('{"id":"a","timestamp":5,"event_message":"m","metadata":[]}');
    for (let length = formatAt + 1; length < written.length; length++) {
      expect(() => rowBytes(written.slice(0, length))).toThrow('recent log member is malformed');
    }
    const altered = written.slice();
    altered[formatAt + 3] = 0x78;
    expect(() => rowBytes(altered)).toThrow('recent log member is malformed');
    const newer = written.slice();
    newer[formatAt] = 0x1e;
    expect(() => rowBytes(newer)).toThrow(NewerStateFormatError);
    expect(() => parseRecentLog(newer)).toThrow(NewerStateFormatError);
  });
});

describe('a logs.all row as JSON text', () => {
  test('is the row parseRecentLog reads, for any event text', () => {
    fc.assert(
      fc.property(eventSpec, (spec) => {
        const text = member(spec.id, spec.timestampUs, eventText(spec));
        expect(JSON.parse(recentLogRowJson(text))).toEqual(rowOf(text));
        expect(valuesOf(text)).toEqual(rowOf(text));
      }),
      { numRuns: 500 },
    );
  });
  test('a cut entry is refused by both readers', () => {
    const raw = JSON.stringify({
      id: 'a"b\\',
      timestamp: 5,
      event_message: 'x}]"',
      metadata: [{ request: [{ host: 'h', path: '/"}' }] }],
    });
    for (let length = 0; length < raw.length; length++) {
      const text = member('a', 5, raw.slice(0, length));
      expect(() => recentLogRowJson(text)).toThrow('recent log member is malformed');
      expect(() => valuesOf(text)).toThrow('recent log member is malformed');
    }
    expect(JSON.parse(recentLogRowJson(member('a', 5, raw)))).toEqual(rowOf(member('a', 5, raw)));
    expect(valuesOf(member('a', 5, raw))).toEqual(rowOf(member('a', 5, raw)));
  });

  test('an entry without an id or metadata, or with a bad timestamp, is refused', () => {
    for (
      const text of [
        member('a', 5, '{"metadata":[]}'),
        member('a', 5, '{"id":"a"}'),
        member('a', 5, '{"id":7,"metadata":[]}'),
        member('a', 5, '{"id":"a","metadata":{}}'),
        `a${SEPARATOR}p${SEPARATOR}five${SEPARATOR}{"id":"a","metadata":[]}`,
        ...['05', '-0', '+5', ' 5', '', '1.5', '9007199254740992', '12345678901234567'].map((t) =>
          `a${SEPARATOR}p${SEPARATOR}${t}${SEPARATOR}{"id":"a","metadata":[]}`
        ),
        '{"id":"a","metadata":[]}',
      ]
    ) {
      expect(() => recentLogRowJson(text), text).toThrow('recent log member is malformed');
      expect(() => valuesOf(text), text).toThrow('recent log member is malformed');
      expect(() => rowOf(text), text).toThrow();
    }
  });

  test('an id holding separators, even ones shaped like a whole member, is read exactly', () => {
    const raw = '{"id":"x","event_message":"m","metadata":[{"a":1}]}';
    for (
      const id of [
        SEPARATOR,
        `a${SEPARATOR}b`,
        `${SEPARATOR}0000000000000001@s/0${SEPARATOR}7${SEPARATOR}{"id":"y","metadata":[]}`,
        `${SEPARATOR}${SEPARATOR}${SEPARATOR}`,
      ]
    ) {
      const text = member(id, 123, raw);
      const expected = { id: 'x', timestamp: 123, event_message: 'm', metadata: [{ a: 1 }] };
      expect(JSON.parse(recentLogRowJson(text)), JSON.stringify(id)).toEqual(expected);
      expect(rowOf(text), JSON.stringify(id)).toEqual(expected);
      expect(valuesOf(text), JSON.stringify(id)).toEqual(expected);
    }
  });

  test('fields are found in one pass, the last of a name counting', () => {
    const text = ' { "a" : 1 , "b":[{"a":2}], "a":"x\\"}é" } ';
    const bytes = UTF8.encode(text);
    const spans = new Int32Array(6);
    const names = fieldNames(['a', 'b', 'c']);
    expect(topLevelFields(bytes, 0, names, spans)).toBe(bytes.length - 1);
    expect(DECODER.decode(bytes.subarray(spans[0], spans[1]))).toBe('"x\\"}é"');
    expect(DECODER.decode(bytes.subarray(spans[2], spans[3]))).toBe('[{"a":2}]');
    expect([spans[4], spans[5]]).toEqual([-1, -1]);
    expect(topLevelFields(UTF8.encode('[1]'), 0, names, spans)).toBe(-1);
    expect(topLevelFields(UTF8.encode('{}'), 0, names, spans)).toBe(2);
    expect(topLevelFields(UTF8.encode('{"a":}'), 0, names, spans)).toBe(-1);
  });
});
