import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiCountsRow } from '../../src/contract/rows.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { edgeEvent, functionEvent, type RequestSpec, us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:15:30.5Z');
const PROJECT = 'abcdefghijklmnopqrst';
const HOST = `${PROJECT}.supabase.co`;

function rows(events: readonly LogEvent[], query: string): ApiCountsRow[] {
  const result = evaluateEndpoint('usage.api-counts', events, new URLSearchParams(query), NOW);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.rows;
}

const at = (time: string, ...paths: string[]) =>
  edgeEvent({ at: us(time), requests: paths.map((path) => ({ host: HOST, path })) });

const counts = (row: ApiCountsRow | undefined) =>
  row === undefined ? null : [
    row.timestamp,
    row.total_rest_requests,
    row.total_storage_requests,
    row.total_auth_requests,
    row.total_realtime_requests,
  ];

describe('usage.api-counts: buckets and window', () => {
  it.each([
    ['minutely', '2026-11-21T09:15:30Z', '2026-11-21T09:15:00'],
    ['hourly', '2026-11-21T09:15:30Z', '2026-11-21T09:00:00'],
    ['daily', '2026-11-14T10:15:00Z', '2026-11-14T00:00:00'],
    ['1hr', '2026-11-21T09:15:30Z', '2026-11-21T09:15:00'],
    ['1day', '2026-11-20T10:15:00Z', '2026-11-20T10:00:00'],
    ['7day', '2026-11-14T10:15:00Z', '2026-11-14T00:00:00'],
  ])('%s: counts from the window start %s (in bucket %s), not one microsecond before', (
    interval,
    start,
    bucket,
  ) => {
    const events = [
      at(start, '/rest/v1/a'),
      edgeEvent({ at: us(start) - 1, requests: [{ host: HOST, path: '/auth' }] }),
    ];
    expect(rows(events, `project=${PROJECT}&interval=${interval}`).map(counts)).toEqual([
      [bucket, 1, 0, 0, 0],
    ]);
  });

  it.each([
    ['minutely', '2026-11-21T10:15:00'],
    ['hourly', '2026-11-21T10:00:00'],
    ['daily', '2026-11-21T00:00:00'],
    ['1hr', '2026-11-21T10:15:00'],
    ['1day', '2026-11-21T10:00:00'],
    ['7day', '2026-11-21T00:00:00'],
  ])('%s buckets a request by its grain (%s)', (interval, bucket) => {
    expect(
      rows([at('2026-11-21T10:15:10Z', '/rest')], `project=${PROJECT}&interval=${interval}`).map(
        counts,
      ),
    )
      .toEqual([[bucket, 1, 0, 0, 0]]);
  });

  it('returns rows only for buckets with counted requests, ascending', () => {
    const events = [
      at('2026-11-21T10:10:00Z', '/auth/v1/token'),
      at('2026-11-21T09:20:59.999999Z', '/rest/v1/a'),
      at('2026-11-21T10:10:30Z', '/storage/v1/object/x'),
    ];
    expect(rows(events, `project=${PROJECT}&interval=minutely`).map(counts)).toEqual([
      ['2026-11-21T09:20:00', 1, 0, 0, 0],
      ['2026-11-21T10:10:00', 0, 1, 1, 0],
    ]);
  });

  it.each([['1hr', 'minutely'], ['7day', 'daily']])(
    '%s answers exactly as %s',
    (studio, equivalent) => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: -300_000_000, max: 8 * 86_400_000_000 }), { maxLength: 40 }),
          (offsets) => {
            const events = offsets.map((offset) =>
              edgeEvent({ at: NOW - offset, requests: [{ host: HOST, path: '/rest/v1/a' }] })
            );
            expect(rows(events, `project=${PROJECT}&interval=${studio}`)).toEqual(
              rows(events, `project=${PROJECT}&interval=${equivalent}`),
            );
          },
        ),
        { numRuns: 50 },
      );
    },
  );

  it('1day: the last 24 hours in hour buckets, the first one partial', () => {
    const events = [
      at('2026-11-20T10:14:59.999999Z', '/rest'),
      at('2026-11-20T10:15:00Z', '/rest', '/auth'),
      at('2026-11-20T10:59:59.999999Z', '/storage'),
      at('2026-11-20T11:00:00Z', '/realtime'),
      at('2026-11-21T10:15:30.5Z', '/rest'),
    ];
    expect(rows(events, `project=${PROJECT}&interval=1day`).map(counts)).toEqual([
      ['2026-11-20T10:00:00', 1, 1, 1, 0],
      ['2026-11-20T11:00:00', 0, 0, 0, 1],
      ['2026-11-21T10:00:00', 1, 0, 0, 0],
    ]);
  });

  it('returns no rows without requests', () => {
    expect(rows([], `project=${PROJECT}&interval=daily`)).toEqual([]);
  });

  it('counts a request after now (no upper bound in the contract)', () => {
    expect(
      rows([at('2026-11-21T10:17:00Z', '/rest')], `project=${PROJECT}&interval=minutely`).map(
        counts,
      ),
    )
      .toEqual([['2026-11-21T10:17:00', 1, 0, 0, 0]]);
  });
});

describe('usage.api-counts: families', () => {
  it.each([
    ['/rest/v1/todos', [1, 0, 0, 0]],
    ['/storage/v1/object/a', [0, 1, 0, 0]],
    ['/auth/v1/user', [0, 0, 1, 0]],
    ['/realtime/v1/websocket', [0, 0, 0, 1]],
    ['/rest/v1/rpc/auth_user', [1, 0, 1, 0]],
    ['/storage/v1/object/realtime-x/a', [0, 1, 0, 1]],
    ['/graphql/v1', [0, 0, 0, 0]],
    ['/REST/v1', [0, 0, 0, 0]],
  ])('%s counts as %j (a row even with zeros)', (path, expected) => {
    const result = rows([at('2026-11-21T10:15:10Z', path)], `project=${PROJECT}&interval=hourly`);
    expect(result.map(counts)).toEqual([['2026-11-21T10:00:00', ...expected]]);
  });

  it('counts every (metadata entry, request entry) pair of an event', () => {
    const event = edgeEvent({
      at: us('2026-11-21T10:15:10Z'),
      metadata: [
        { request: [{ host: HOST, path: '/rest/a' }, { host: HOST, path: '/rest/b' }] },
        { request: [{ host: HOST, path: '/auth' }] },
      ],
    });
    expect(rows([event], `project=${PROJECT}&interval=hourly`).map(counts)).toEqual([
      ['2026-11-21T10:00:00', 2, 0, 1, 0],
    ]);
  });
});

describe('usage.api-counts: host matching', () => {
  const request = (spec: RequestSpec, project = 'somebody-else') =>
    edgeEvent({ at: us('2026-11-21T10:15:10Z'), project, requests: [spec] });

  it.each<[string, RequestSpec, string, boolean]>([
    ['the ref as a pattern', { host: HOST, path: '/rest' }, PROJECT, true],
    ['containment, not a full match', { host: HOST, path: '/rest' }, 'fghij', true],
    ['an anchored pattern', { host: HOST, path: '/rest' }, `^${PROJECT}\\.supabase\\.co$`, true],
    ['a full-match pattern that fails', { host: HOST, path: '/rest' }, `^${PROJECT}$`, false],
    [
      'the host of the url when host is absent',
      { url: `https://${HOST}/rest/v1/x` },
      PROJECT,
      true,
    ],
    [
      'the path of the url when path is absent',
      { host: HOST, url: `https://${HOST}/rest/v1/x` },
      PROJECT,
      true,
    ],
    [
      'the path is not matched',
      { host: 'other.supabase.co', path: `/rest/${PROJECT}` },
      PROJECT,
      false,
    ],
    [
      'the url beyond the host is not matched',
      { url: `https://other.supabase.co/rest/${PROJECT}` },
      PROJECT,
      false,
    ],
    ['no host and no url', { path: '/rest' }, '.*', false],
  ])('%s', (_, spec, pattern, counted) => {
    const result = rows([request(spec)], `project=${encodeURIComponent(pattern)}&interval=hourly`);
    expect(result.length).toBe(counted ? 1 : 0);
  });

  it('does not look at the event project, only at request hosts', () => {
    const result = rows(
      [request({ host: HOST, path: '/rest' }, 'unrelated')],
      `project=${PROJECT}&interval=hourly`,
    );
    expect(result.map(counts)).toEqual([['2026-11-21T10:00:00', 1, 0, 0, 0]]);
  });

  it('ignores function-edge events', () => {
    expect(rows([functionEvent({ at: NOW })], `project=${PROJECT}&interval=hourly`)).toEqual([]);
  });

  it('refuses an invalid pattern and an unknown interval', () => {
    for (const query of ['project=(x&interval=hourly', `project=${PROJECT}&interval=weekly`]) {
      expect(evaluateEndpoint('usage.api-counts', [], new URLSearchParams(query), NOW).ok).toBe(
        false,
      );
    }
  });
});

describe('usage.api-counts: properties', () => {
  it('family totals equal the matching requests of each family in the window', () => {
    const paths = [
      '/rest/v1/a',
      '/auth/v1/t',
      '/storage/v1/o',
      '/realtime/v1/w',
      '/rest/v1/rpc/auth',
      '/graphql/v1',
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            offset: fc.integer({ min: 0, max: 8 * 86_400_000_000 }),
            path: fc.constantFrom(...paths),
          }),
          {
            maxLength: 60,
          },
        ),
        fc.constantFrom('minutely', 'hourly', 'daily', '1hr', '1day', '7day'),
        (specs, interval) => {
          const events = specs.map((s) =>
            edgeEvent({ at: NOW - s.offset, requests: [{ host: HOST, path: s.path }] })
          );
          const result = rows(events, `project=${PROJECT}&interval=${interval}`);
          const { windowUs, precision } = {
            minutely: { windowUs: 3_600_000_000, precision: 1_000_000 },
            hourly: { windowUs: 3_600_000_000, precision: 1_000_000 },
            daily: { windowUs: 7 * 86_400_000_000, precision: 60_000_000 },
            '1hr': { windowUs: 3_600_000_000, precision: 1_000_000 },
            '1day': { windowUs: 86_400_000_000, precision: 60_000_000 },
            '7day': { windowUs: 7 * 86_400_000_000, precision: 60_000_000 },
          }[interval];
          const start = Math.floor((NOW - windowUs) / precision) * precision;
          const inWindow = specs.filter((s) => NOW - s.offset >= start);
          const total = (text: string) => inWindow.filter((s) => s.path.includes(text)).length;
          const sum = (key: keyof ApiCountsRow) =>
            result.reduce((acc, row) => acc + Number(row[key]), 0);
          expect([
            sum('total_rest_requests'),
            sum('total_storage_requests'),
            sum('total_auth_requests'),
            sum('total_realtime_requests'),
          ])
            .toEqual([total('/rest'), total('/storage'), total('/auth'), total('/realtime')]);
          const stamps = result.map((row) => row.timestamp);
          expect(stamps).toEqual(stamps.toSorted());
        },
      ),
      { numRuns: 50 },
    );
  });
});
