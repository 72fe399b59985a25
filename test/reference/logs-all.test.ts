import { describe, expect, it } from 'vitest';
import type { LogRow } from '../../src/contract/rows.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { edgeEvent, functionEvent, us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:15:30.5Z');
const DAY = 86_400_000_000;
const PROJECT = 'abcdefghijklmnopqrst';

function rows(events: readonly LogEvent[], params: Record<string, string>): LogRow[] {
  const result = evaluateEndpoint('logs.all', events, {
    project: PROJECT,
    project_tier: 'FREE',
    ...params,
  }, NOW);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.rows;
}

const ids = (list: readonly LogRow[]) => list.map((row) => row.id);

describe('logs.all: rows', () => {
  it('returns id, timestamp, event_message and metadata as ingested', () => {
    const metadata = [{ request: [{ path: '/rest/v1/x', custom: { deep: [1, null] } }] }];
    const events = [
      edgeEvent({ at: us('2026-11-21T10:00:00.123456Z'), id: 'a', message: 'GET | 200', metadata }),
      edgeEvent({ at: us('2026-11-21T09:00:00Z'), id: 'b' }),
    ];
    expect(rows(events, {})).toEqual([
      {
        id: 'a',
        timestamp: us('2026-11-21T10:00:00.123456Z'),
        event_message: 'GET | 200',
        metadata,
      },
      {
        id: 'b',
        timestamp: us('2026-11-21T09:00:00.000000Z'),
        event_message: null,
        metadata: events[1]?.metadata,
      },
    ]);
  });

  it('selects by equality with the top-level project, and edge events only', () => {
    const at = NOW - 1_000;
    const events = [
      edgeEvent({ at, id: 'mine' }),
      edgeEvent({ at, id: 'longer', project: `${PROJECT}x` }),
      edgeEvent({ at, id: 'other', project: 'other' }),
      functionEvent({ at, id: 'function', project: PROJECT }),
    ];
    expect(ids(rows(events, {}))).toEqual(['mine']);
  });
});

describe('logs.all: order and limits', () => {
  it('returns the 100 newest, newest first', () => {
    const events = Array.from(
      { length: 150 },
      (_, i) => edgeEvent({ at: NOW - 150 + i, id: `e${i}` }),
    );
    const result = rows(events, {});
    expect(result).toHaveLength(100);
    expect(ids(result)).toEqual(Array.from({ length: 100 }, (_, i) => `e${149 - i}`));
  });

  it('breaks timestamp ties by id descending, then by input order', () => {
    const at = NOW - 10;
    const events = [
      edgeEvent({ at, id: 'b', message: 'first b' }),
      edgeEvent({ at, id: 'c' }),
      edgeEvent({ at: at + 1, id: 'a' }),
      edgeEvent({ at, id: 'b', message: 'second b' }),
      edgeEvent({ at, id: 'B' }),
    ];
    const result = rows(events, {});
    expect(result.map((r) => `${r.id}:${r.event_message ?? ''}`)).toEqual([
      'a:',
      'c:',
      'b:first b',
      'b:second b',
      'B:',
    ]);
  });
});

describe('logs.all: retention', () => {
  it.each([
    ['FREE', DAY],
    ['PRO', 7 * DAY],
    ['PAYG', 90 * DAY],
    ['ENTERPRISE', 90 * DAY],
    ['GOLD', DAY],
    ['pro', DAY],
  ])('%s keeps entries strictly newer than now - %d us', (tier, window) => {
    const events = [
      edgeEvent({ at: NOW - window, id: 'on-the-edge' }),
      edgeEvent({ at: NOW - window + 1, id: 'just-inside' }),
      edgeEvent({ at: NOW - window - 1, id: 'outside' }),
    ];
    expect(ids(rows(events, { project_tier: tier }))).toEqual(['just-inside']);
  });
});

describe('logs.all: time range', () => {
  const start = us('2026-11-21T10:00:00Z');
  const end = us('2026-11-21T10:10:00Z');
  const events = [
    edgeEvent({ at: start - 1, id: 'before-start' }),
    edgeEvent({ at: start, id: 'at-start' }),
    edgeEvent({ at: start + 1, id: 'after-start' }),
    edgeEvent({ at: end, id: 'at-end' }),
    edgeEvent({ at: end + 1, id: 'after-end' }),
  ];

  it.each([
    ['no bounds', {}, ['after-end', 'at-end', 'after-start', 'at-start', 'before-start']],
    ['empty bounds', { iso_timestamp_start: '', iso_timestamp_end: '' }, [
      'after-end',
      'at-end',
      'after-start',
      'at-start',
      'before-start',
    ]],
    ['start exclusive', { iso_timestamp_start: '2026-11-21T10:00:00Z' }, [
      'after-end',
      'at-end',
      'after-start',
    ]],
    ['end inclusive', { iso_timestamp_end: '2026-11-21T10:10:00Z' }, [
      'at-end',
      'after-start',
      'at-start',
      'before-start',
    ]],
    ['both', {
      iso_timestamp_start: '2026-11-21T10:00:00Z',
      iso_timestamp_end: '2026-11-21T10:10:00Z',
    }, [
      'at-end',
      'after-start',
    ]],
    ['no zone is UTC', {
      iso_timestamp_start: '2026-11-21T10:00:00',
      iso_timestamp_end: '2026-11-21 10:10',
    }, [
      'at-end',
      'after-start',
    ]],
    ['an offset', { iso_timestamp_start: '2026-11-21T11:00:00+01:00' }, [
      'after-end',
      'at-end',
      'after-start',
    ]],
    ['start after end', {
      iso_timestamp_start: '2026-11-21T10:10:00Z',
      iso_timestamp_end: '2026-11-21T10:00:00Z',
    }, []],
  ])('%s', (_, params, expected) => {
    expect(ids(rows(events, params))).toEqual(expected);
  });

  it('refuses an unparseable bound', () => {
    const result = evaluateEndpoint('logs.all', events, {
      project: PROJECT,
      project_tier: 'FREE',
      iso_timestamp_end: 'soon',
    }, NOW);
    expect(result.ok ? null : result.error.parameter).toBe('iso_timestamp_end');
  });
});
