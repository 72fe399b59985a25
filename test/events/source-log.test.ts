/**
 * A Logflare source's event as normalized at ingest (`normalizeEvent`) and validated
 * (`parseSourceLog`), and Kong's events as edge events (`kongEdgeEvent`), against CONTRACT 3.1.
 */
import { describe, expect, test } from 'vitest';
import { normalizeEvent } from '../../api/logflare/normalize.ts';
import { kongEdgeEvent } from '../../src/events/kong.ts';
import { parseSourceLog } from '../../src/events/source-log.ts';

const NOW_US = Date.UTC(2026, 10, 21, 10, 15, 30) * 1000;
const OPTIONS = { nowUs: NOW_US, maxFutureSkewUs: 300_000_000 };
const NORMALIZE = { nowUs: NOW_US, projectRef: 'default', newId: () => 'generated-id' };

function normalized(value: unknown) {
  const result = normalizeEvent(value, NORMALIZE);
  if (!result.ok) throw new Error(result.reason);
  return result.event;
}

describe('normalizeEvent', () => {
  test('an id, a timestamp of now and the project where the event has none', () => {
    expect(normalized({ event_message: 'x' })).toEqual({
      event_message: 'x',
      id: 'generated-id',
      timestamp: NOW_US,
      project: 'default',
    });
  });

  test.each<[string, unknown, unknown]>([
    ['RFC 3339 with nanoseconds', '2026-11-21T10:14:02.031283512Z', NOW_US - 87_968_717],
    ['RFC 3339 with an offset', '2026-11-21T11:14:02+01:00', NOW_US - 88_000_000],
    ['seconds (10 digits)', 1_795_256_042, NOW_US - 88_000_000],
    ['milliseconds (13 digits)', 1_795_256_042_031, NOW_US - 87_969_000],
    ['microseconds (16 digits)', 1_795_256_042_031_283, NOW_US - 87_968_717],
    ['nanoseconds (19 digits)', 1_795_256_042_031_283_000, NOW_US - 87_968_717],
    ['an integer of other digits, as microseconds', 12_345, 12_345],
    ['a string that is no time, left for the validation', 'yesterday', 'yesterday'],
  ])('timestamp as %s', (_, timestamp, expected) => {
    expect(normalized({ timestamp }).timestamp).toBe(expected);
  });

  test('event_message from message, else log_entry; an event_message of its own wins', () => {
    expect(normalized({ message: 'm', log_entry: 'l' }).event_message).toBe('m');
    expect(normalized({ log_entry: 'l' }).event_message).toBe('l');
    expect(normalized({ event_message: 'e', message: 'm' }).event_message).toBe('e');
  });

  test('the configured ref replaces a missing or `default` project, not another', () => {
    const options = { ...NORMALIZE, projectRef: 'abcdefghijklmnopqrst' };
    const of = (value: object) => normalizeEvent(value, options);
    expect(of({})).toMatchObject({ event: { project: 'abcdefghijklmnopqrst' } });
    expect(of({ project: 'default' })).toMatchObject({
      event: { project: 'abcdefghijklmnopqrst' },
    });
    expect(of({ project: 'other' })).toMatchObject({ event: { project: 'other' } });
  });

  test('anything but an object is refused with what it is', () => {
    expect(normalizeEvent([1], NORMALIZE)).toEqual({
      ok: false,
      reason: 'an event must be a JSON object: got an array',
    });
    expect(normalizeEvent(null, NORMALIZE)).toEqual({
      ok: false,
      reason: 'an event must be a JSON object: got object',
    });
  });
});

describe('parseSourceLog', () => {
  const valid = { id: 'a', timestamp: NOW_US - 1, project: 'default', metadata: { level: 'info' } };

  test('keeps the text it was given and reads id, time and project', () => {
    const text = JSON.stringify(valid);
    const result = parseSourceLog(text, 'gotrue.logs.prod', OPTIONS);
    expect(result).toEqual({
      ok: true,
      event: {
        source: 'logflare',
        sourceName: 'gotrue.logs.prod',
        id: 'a',
        timestampUs: NOW_US - 1,
        project: 'default',
        text,
        edge: null,
      },
    });
  });

  test.each<[string, unknown, string, string]>([
    ['not an object', [valid], 'schema', 'an event must be a JSON object: got an array'],
    ['no id', { ...valid, id: undefined }, 'schema', '/id must be a non-empty string: got nothing'],
    [
      'an empty project',
      { ...valid, project: '' },
      'schema',
      '/project must be a non-empty string: got ""',
    ],
    [
      'a long project',
      { ...valid, project: 'p'.repeat(129) },
      'size',
      '/project must be at most 128 characters: got 129',
    ],
    [
      'a lone surrogate in the id',
      { ...valid, id: 'a\ud800' },
      'encoding',
      '/id must be well-formed Unicode: it holds a lone surrogate',
    ],
    [
      'a long message',
      { ...valid, event_message: 'm'.repeat(32_769) },
      'size',
      '/event_message must be at most 32768 characters: got 32769',
    ],
    [
      'too deep',
      { ...valid, metadata: JSON.parse('['.repeat(33) + ']'.repeat(33)) },
      'size',
      'an event must not nest deeper than 32 levels',
    ],
    [
      'from the future',
      { ...valid, timestamp: NOW_US + 306_000_000 },
      'future',
      'timestamp is 5.1 minutes in the future (allowed skew 5 minutes)',
    ],
    [
      'too old',
      { ...valid, timestamp: NOW_US - 91 * 86_400_000_000 },
      'too-old',
      'timestamp is 91 days old (events older than 90 days are rejected)',
    ],
  ])('refuses %s', (_, value, kind, reason) => {
    const result = parseSourceLog(JSON.stringify(value), 'postgres.logs', OPTIONS);
    expect(result.ok ? null : result.rejection).toMatchObject({ kind, reason });
  });

  test('a depth of 32 levels is kept', () => {
    const metadata = JSON.parse('['.repeat(31) + ']'.repeat(31));
    expect(parseSourceLog(JSON.stringify({ ...valid, metadata }), 'postgres.logs', OPTIONS).ok)
      .toBe(true);
  });

  test("Kong's events carry their edge event; other sources' none", () => {
    const kong = { ...valid, metadata: { request: { method: 'GET', path: '/rest/v1/t' } } };
    const text = JSON.stringify(kong);
    const result = parseSourceLog(text, 'cloudflare.logs.prod', OPTIONS);
    expect(result.ok && result.event.edge?.requests).toEqual([{
      host: 'default',
      path: '/rest/v1/t',
    }]);
    const other = parseSourceLog(text, 'gotrue.logs.prod', OPTIONS);
    expect(other.ok && other.event.edge).toBeNull();
  });
});

describe('kongEdgeEvent', () => {
  const identity = { id: 'k', timestampUs: NOW_US, project: 'default' };

  test('the warehouse form of the metadata, the path split from its query', () => {
    const edge = kongEdgeEvent({
      event_message: 'GET /auth/v1/callback?next=/rest',
      metadata: {
        request: { method: 'GET', path: '/auth/v1/callback?next=/rest', headers: { a: 'b' } },
        response: { status_code: 302 },
        tags: [{ k: 1 }, 'x'],
      },
    }, identity);
    expect(edge?.metadata).toEqual([{
      request: [{
        method: 'GET',
        path: '/auth/v1/callback',
        search: '?next=/rest',
        headers: [{ a: 'b' }],
      }],
      response: [{ status_code: 302 }],
      tags: [{ k: 1 }, 'x'],
    }]);
    // Families by the path alone: `/rest` in the query does not make it a REST request.
    expect(edge?.requests).toEqual([{ host: 'default', path: '/auth/v1/callback' }]);
    expect(JSON.parse(edge?.raw ?? '')).toEqual({
      id: 'k',
      timestamp: NOW_US,
      project: 'default',
      event_message: 'GET /auth/v1/callback?next=/rest',
      metadata: edge?.metadata,
    });
  });

  test('a request without a path is a request without a family; no request object, no event', () => {
    expect(kongEdgeEvent({ metadata: { request: { method: 'GET' } } }, identity)?.requests)
      .toEqual([{ host: 'default', path: null }]);
    expect(kongEdgeEvent({ metadata: { request: 'GET /' } }, identity)).toBeNull();
    expect(kongEdgeEvent({ metadata: 'none' }, identity)).toBeNull();
    expect(kongEdgeEvent({}, identity)).toBeNull();
  });
});
