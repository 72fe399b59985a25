import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_AGE_US,
  DEFAULT_MAX_FUTURE_SKEW_US,
  parse,
  type ParseOptions,
} from '../../src/events/parse.ts';
import type {
  JsonObject,
  ParseResult,
  Rejection,
  RejectionKind,
  Source,
} from '../../src/events/types.ts';
import { LONGEST_RETENTION_US } from '../../src/contract/tiers.ts';
import { us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:20:00Z');
const OPTIONS: ParseOptions = { nowUs: NOW };
const MINUTE = 60_000_000;
const DAY = 86_400_000_000;

/** The CONTRACT section 3 examples. */
const EDGE: JsonObject = {
  id: '4f0c',
  timestamp: '2026-11-21T10:15:30.123456Z',
  project: 'abcdefghijklmnopqrst',
  event_message:
    'GET | 200 | 203.0.113.7 | https://abcdefghijklmnopqrst.supabase.co/rest/v1/todos?select=*',
  metadata: [{
    request: [{
      method: 'GET',
      host: 'abcdefghijklmnopqrst.supabase.co',
      path: '/rest/v1/todos',
      search: '?select=*',
      url: 'https://abcdefghijklmnopqrst.supabase.co/rest/v1/todos?select=*',
    }],
    response: [{ status_code: 200 }],
  }],
};

const FUNCTION_EDGE: JsonObject = {
  id: '9b1e',
  timestamp: 1795256130123456,
  event_message: 'POST | 200 | https://abcdefghijklmnopqrst.supabase.co/functions/v1/hello',
  metadata: [{
    project_ref: 'abcdefghijklmnopqrst',
    function_id: '5b7c',
    execution_time_ms: 42.7,
    deployment_id: 'd',
    request: [{ method: 'POST', url: 'u', pathname: '/functions/v1/hello' }],
    response: [{ status_code: 200 }],
  }],
};

function rejection(result: ParseResult): Rejection {
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.event)}`);
  return result.rejection;
}

const withField = (event: JsonObject, patch: JsonObject): string =>
  JSON.stringify({ ...event, ...patch });

describe('parse: valid events', () => {
  it('reads the edge example of the contract, keeping its text verbatim', () => {
    const text = JSON.stringify(EDGE);
    const result = parse(text, 'edge', OPTIONS);
    expect(result).toEqual({
      ok: true,
      event: {
        source: 'edge',
        id: '4f0c',
        timestampUs: us('2026-11-21T10:15:30.123456Z'),
        project: 'abcdefghijklmnopqrst',
        eventMessage: EDGE.event_message,
        metadata: EDGE.metadata,
        requests: [{ host: 'abcdefghijklmnopqrst.supabase.co', path: '/rest/v1/todos' }],
        raw: text,
      },
    });
  });

  it('reads the function-edge example of the contract, from UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode(JSON.stringify(FUNCTION_EDGE));
    const result = parse(bytes, 'function-edge', OPTIONS);
    expect(result).toEqual({
      ok: true,
      event: {
        source: 'function-edge',
        id: '9b1e',
        timestampUs: 1795256130123456,
        project: 'abcdefghijklmnopqrst',
        eventMessage: FUNCTION_EDGE.event_message,
        metadata: FUNCTION_EDGE.metadata,
        invocations: [{
          projectRef: 'abcdefghijklmnopqrst',
          functionId: '5b7c',
          executionTimeMs: 42.7,
          statusCode: 200,
        }],
      },
    });
  });

  it.each([
    ['RFC 3339 with Z and 6 digits', '2026-11-21T10:15:30.123456Z', 1795256130123456],
    ['an offset', '2026-11-21T11:15:30.123456+01:00', 1795256130123456],
    ['9 digits, truncated', '2026-11-21T10:15:30.123456999Z', 1795256130123456],
    ['no fraction', '2026-11-21T10:15:30Z', 1795256130000000],
    ['integer microseconds', 1795256130123456, 1795256130123456],
    ['an integer written with an exponent', 1.795256130123456e15, 1795256130123456],
  ])('accepts a timestamp as %s', (_, timestamp, expected) => {
    const result = parse(withField(EDGE, { timestamp }), 'edge', OPTIONS);
    expect(result.ok && result.event.timestampUs).toBe(expected);
  });

  it('keeps extra fields in metadata, and drops none', () => {
    const metadata = [{ custom: { nested: [1, 'two', null] }, request: [] }];
    const result = parse(withField(EDGE, { metadata, extra: true }), 'edge', OPTIONS);
    expect(result.ok && result.event.metadata).toEqual(metadata);
  });

  it('accepts an absent or null event_message as null', () => {
    const { event_message: _, ...bare } = EDGE;
    const absent = parse(JSON.stringify(bare), 'edge', OPTIONS);
    const nulled = parse(withField(EDGE, { event_message: null }), 'edge', OPTIONS);
    expect(absent.ok && absent.event.eventMessage).toBeNull();
    expect(nulled.ok && nulled.event.eventMessage).toBeNull();
  });

  it('accepts a timestamp exactly at the skew and exactly at the maximum age', () => {
    const atSkew = parse(
      withField(EDGE, { timestamp: NOW + DEFAULT_MAX_FUTURE_SKEW_US }),
      'edge',
      OPTIONS,
    );
    const atAge = parse(withField(EDGE, { timestamp: NOW - DEFAULT_MAX_AGE_US }), 'edge', OPTIONS);
    expect(atSkew.ok).toBe(true);
    expect(atAge.ok).toBe(true);
  });

  it('uses the configured skew and age', () => {
    const options = { nowUs: NOW, maxFutureSkewUs: MINUTE, maxAgeUs: DAY };
    expect(parse(withField(EDGE, { timestamp: NOW + 2 * MINUTE }), 'edge', options).ok).toBe(false);
    expect(parse(withField(EDGE, { timestamp: NOW - 2 * DAY }), 'edge', options).ok).toBe(false);
    expect(parse(withField(EDGE, { timestamp: NOW + MINUTE }), 'edge', options).ok).toBe(true);
  });

  it('defaults the maximum age to the longest tier retention', () => {
    expect(DEFAULT_MAX_AGE_US).toBe(LONGEST_RETENTION_US);
  });

  it('takes the project of a function-edge event from metadata[].project_ref', () => {
    const metadata: JsonObject[] = [
      { project_ref: 'first', response: [{ status_code: 200 }] },
      { project_ref: 'first', response: [{ status_code: 500 }, { status_code: 201 }] },
    ];
    const result = parse(withField(FUNCTION_EDGE, { metadata }), 'function-edge', OPTIONS);
    if (!result.ok || result.event.source !== 'function-edge') throw new Error('rejected');
    expect(result.event.project).toBe('first');
    expect(result.event.invocations.map((i) => [i.projectRef, i.statusCode])).toEqual([
      ['first', 200],
      ['first', 500],
      ['first', 201],
    ]);
  });

  it('refuses a function-edge event whose entries name different projects', () => {
    // Its invocations would change two projects' rollups from one partition: exactly-once
    // folding relies on one writer per project (the partition of the project's key).
    const metadata: JsonObject[] = [
      { project_ref: 'first', response: [{ status_code: 200 }] },
      { project_ref: 'second', response: [{ status_code: 500 }] },
    ];
    const result = parse(withField(FUNCTION_EDGE, { metadata }), 'function-edge', OPTIONS);
    expect(result).toEqual({
      ok: false,
      rejection: {
        kind: 'schema',
        reason: "every metadata entry must name the same project_ref (the event's project): " +
          'entry 0 has "first", entry 1 has "second"',
        path: '/metadata/1/project_ref',
      },
    });
  });
});

describe('parse: UTF-8', () => {
  const bytesOf = (text: string) => new TextEncoder().encode(text);
  const strict = new TextDecoder('utf-8', { fatal: true });

  it('keeps a U+FFFD the producer wrote, and a byte-order mark is left out as before', () => {
    const text = withField(EDGE, { event_message: 'GET | 200 | \uFFFD | é' });
    const parsed = parse(bytesOf(text), 'edge', OPTIONS);
    expect(parsed.ok && parsed.event.source === 'edge' && parsed.event.eventMessage).toBe(
      'GET | 200 | \uFFFD | é',
    );
    const withMark = new Uint8Array([0xef, 0xbb, 0xbf, ...bytesOf(text)]);
    expect(parse(withMark, 'edge', OPTIONS).ok).toBe(true);
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])("refuses %s, with the strict decoder's message, beside a real U+FFFD or not", (_, bad) => {
    for (const around of ['', '\uFFFD']) {
      const [head, tail] = withField(EDGE, { event_message: `x${around}@` }).split('@');
      const bytes = new Uint8Array([...bytesOf(head ?? ''), ...bad, ...bytesOf(tail ?? '')]);
      let message = '';
      try {
        strict.decode(bytes);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(parse(bytes, 'edge', OPTIONS)).toEqual({
        ok: false,
        rejection: { kind: 'encoding', reason: `not valid UTF-8: ${message}`, path: '' },
      });
    }
  });
});

describe('parse: rejections', () => {
  it.each<[string, Source, string | Uint8Array, string, string]>([
    ['not JSON', 'edge', '{"id": "a",', 'not valid JSON: ', ''],
    ['empty', 'edge', '', 'not valid JSON: ', ''],
    ['invalid UTF-8', 'edge', new Uint8Array([0x7b, 0xff, 0x7d]), 'not valid UTF-8', ''],
    ['an array', 'edge', '[]', 'the event must be an object: got an array', ''],
    ['a number', 'function-edge', '42', 'the event must be an object: got 42', ''],
    [
      'missing id',
      'edge',
      JSON.stringify({ ...EDGE, id: undefined }),
      'missing required field /id',
      '/id',
    ],
    ['empty id', 'edge', withField(EDGE, { id: '' }), '/id must be a non-empty string', '/id'],
    ['numeric id', 'edge', withField(EDGE, { id: 7 }), '/id must be a string: got 7', '/id'],
    [
      'missing timestamp',
      'edge',
      JSON.stringify({ ...EDGE, timestamp: undefined }),
      'missing required field /timestamp',
      '/timestamp',
    ],
    [
      'missing project',
      'edge',
      JSON.stringify({ ...EDGE, project: undefined }),
      'missing required field /project',
      '/project',
    ],
    [
      'empty project',
      'edge',
      withField(EDGE, { project: '' }),
      '/project must be a non-empty string',
      '/project',
    ],
    [
      'metadata an object',
      'edge',
      withField(EDGE, { metadata: {} }),
      '/metadata must be an array: got an object',
      '/metadata',
    ],
    [
      'metadata entry not an object',
      'edge',
      withField(EDGE, { metadata: ['x'] }),
      '/metadata/0 must be an object: got "x"',
      '/metadata/0',
    ],
    [
      'request not an array',
      'edge',
      withField(EDGE, { metadata: [{ request: 'GET /' }] }),
      '/metadata/0/request must be an array: got "GET /"',
      '/metadata/0/request',
    ],
    [
      'status_code a string',
      'edge',
      withField(EDGE, { metadata: [{ response: [{ status_code: '200' }] }] }),
      '/metadata/0/response/0/status_code must be an integer or null: got "200"',
      '/metadata/0/response/0/status_code',
    ],
    [
      'status_code out of range',
      'function-edge',
      withField(FUNCTION_EDGE, {
        metadata: [{ project_ref: 'p', response: [{ status_code: 600 }] }],
      }),
      '/metadata/0/response/0/status_code must be <= 599: got 600',
      '/metadata/0/response/0/status_code',
    ],
    [
      'event_message a number',
      'edge',
      withField(EDGE, { event_message: 42 }),
      '/event_message must be a string or null: got 42',
      '/event_message',
    ],
    [
      'function-edge without metadata entries',
      'function-edge',
      withField(FUNCTION_EDGE, { metadata: [] }),
      '/metadata must have at least 1 entry: got 0',
      '/metadata',
    ],
    [
      'function-edge without project_ref',
      'function-edge',
      withField(FUNCTION_EDGE, { metadata: [{ function_id: 'f' }] }),
      'missing required field /metadata/0/project_ref',
      '/metadata/0/project_ref',
    ],
    [
      'function-edge with an empty project_ref in a later entry',
      'function-edge',
      withField(FUNCTION_EDGE, { metadata: [{ project_ref: 'p' }, { project_ref: '' }] }),
      '/metadata/1/project_ref must be a non-empty string',
      '/metadata/1/project_ref',
    ],
    [
      'execution_time_ms a string',
      'function-edge',
      withField(FUNCTION_EDGE, { metadata: [{ project_ref: 'p', execution_time_ms: '12ms' }] }),
      '/metadata/0/execution_time_ms must be a number or null: got "12ms"',
      '/metadata/0/execution_time_ms',
    ],
    [
      'execution_time_ms negative',
      'function-edge',
      withField(FUNCTION_EDGE, { metadata: [{ project_ref: 'p', execution_time_ms: -1 }] }),
      '/metadata/0/execution_time_ms must be >= 0: got -1',
      '/metadata/0/execution_time_ms',
    ],
    [
      'an edge event on the function-edge topic',
      'function-edge',
      JSON.stringify(EDGE),
      'missing required field /metadata/0/project_ref',
      '/metadata/0/project_ref',
    ],
  ])('%s', (_, source, input, reason, path) => {
    const rejected = rejection(parse(input, source, OPTIONS));
    expect(rejected.reason.startsWith(reason), rejected.reason).toBe(true);
    expect(rejected.path).toBe(path);
  });

  it.each([
    ['a word', 'yesterday', '"yesterday"'],
    ['no zone', '2026-11-21T10:15:30', '"2026-11-21T10:15:30"'],
    ['an impossible date', '2026-02-30T10:15:30Z', '"2026-02-30T10:15:30Z"'],
    ['a numeric string', '1795256130123456', '"1795256130123456"'],
    ['a fraction of a microsecond', 1795256130123456.5, '1795256130123456.5'],
    ['an unsafe integer', 2 ** 53, '9007199254740992'],
    ['a boolean', true, 'true'],
    ['null', null, 'null'],
    ['an object', { at: 1 }, 'an object'],
  ])('rejects a timestamp that is %s', (_, timestamp, shown) => {
    const rejected = rejection(parse(withField(EDGE, { timestamp }), 'edge', OPTIONS));
    expect(rejected).toEqual({
      kind: 'timestamp',
      reason:
        `timestamp must be an RFC 3339 string with a zone or an integer of microseconds since the epoch: got ${shown}`,
      path: '/timestamp',
    });
  });

  it.each([
    [NOW + 12 * MINUTE, 'timestamp is 12 minutes in the future (allowed skew 5 minutes)'],
    [NOW + 5 * MINUTE + 1, 'timestamp is 5.1 minutes in the future (allowed skew 5 minutes)'],
    [NOW + 3 * DAY, 'timestamp is 3 days in the future (allowed skew 5 minutes)'],
    [NOW - 91 * DAY, 'timestamp is 91 days old (events older than 90 days are rejected)'],
    [NOW - 90 * DAY - 1, 'timestamp is 90.1 days old (events older than 90 days are rejected)'],
  ])('rejects timestamp %d relative to now', (timestamp, reason) => {
    const kind = timestamp > NOW ? 'future' : 'too-old';
    expect(rejection(parse(withField(EDGE, { timestamp }), 'edge', OPTIONS)))
      .toEqual({ kind, reason, path: '/timestamp' });
    expect(rejection(parse(withField(FUNCTION_EDGE, { timestamp }), 'function-edge', OPTIONS)))
      .toEqual({ kind, reason, path: '/timestamp' });
  });

  it('rejects a message over the size limit before parsing it', () => {
    const big = withField(EDGE, { event_message: 'x'.repeat(200_000) });
    expect(rejection(parse(big, 'edge', OPTIONS)).reason).toBe(
      `event is larger than the limit of 131072 bytes: got ${big.length}`,
    );
    expect(rejection(parse(JSON.stringify(EDGE), 'edge', { ...OPTIONS, maxBytes: 100 })).reason)
      .toMatch(/^event is larger than the limit of 100 bytes: got \d+$/);
  });

  it('measures a string in UTF-8 bytes, and accepts exactly the limit', () => {
    // 30 characters of 2 bytes each: 30 UTF-16 units, 60 bytes.
    const text = withField(EDGE, { event_message: 'é'.repeat(30) });
    const bytes = new TextEncoder().encode(text).length;
    expect(parse(text, 'edge', { ...OPTIONS, maxBytes: bytes }).ok).toBe(true);
    expect(rejection(parse(text, 'edge', { ...OPTIONS, maxBytes: bytes - 1 })).reason).toBe(
      `event is larger than the limit of ${bytes - 1} bytes: got ${bytes}`,
    );
    // Fewer UTF-16 units than the limit, more bytes: refused by its bytes.
    const units = text.length;
    expect(units).toBeLessThan(bytes - 10);
    expect(rejection(parse(text, 'edge', { ...OPTIONS, maxBytes: units + 5 })).kind).toBe('size');
  });

  it('refuses a lone surrogate in any field that names a key', () => {
    const lone = JSON.parse('"a\\ud800b"') as string;
    const functionEntry = (patch: JsonObject) =>
      withField(FUNCTION_EDGE, {
        metadata: [{ ...(FUNCTION_EDGE.metadata as JsonObject[])[0], ...patch }],
      });
    expect(rejection(parse(functionEntry({ project_ref: lone }), 'function-edge', OPTIONS)))
      .toMatchObject({ kind: 'encoding', path: '/metadata/0/project_ref' });
    expect(rejection(parse(functionEntry({ function_id: lone }), 'function-edge', OPTIONS)))
      .toMatchObject({ kind: 'encoding', path: '/metadata/0/function_id' });
    const request: JsonObject[] = [{ host: 'fine.example' }, { host: lone, path: '/rest' }];
    expect(
      rejection(parse(withField(EDGE, { metadata: [{ request }] }), 'edge', OPTIONS)),
    ).toMatchObject({ kind: 'encoding', path: '/metadata/0/request/1/host' });
  });

  it('points at the long url host when it opens the second metadata entry', () => {
    const host = `${'h'.repeat(1_030)}.example`;
    const metadata: JsonObject[] = [
      { request: [{ host: 'fine.example' }] },
      { request: [{ url: `https://${host}/rest` }] },
    ];
    expect(rejection(parse(withField(EDGE, { metadata }), 'edge', OPTIONS)).path).toBe(
      '/metadata/1/request/0/url',
    );
  });

  it('refuses a lone surrogate in the project of an edge event', () => {
    const lone = JSON.parse('"p\\udc00"') as string;
    expect(rejection(parse(withField(EDGE, { project: lone }), 'edge', OPTIONS))).toMatchObject({
      kind: 'encoding',
      path: '/project',
    });
  });

  it('rejects a function-edge event nested deeper than 32 levels', () => {
    let deep: JsonObject = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { child: deep };
    const metadata = [{ ...(FUNCTION_EDGE.metadata as JsonObject[])[0], deep }];
    expect(rejection(parse(withField(FUNCTION_EDGE, { metadata }), 'function-edge', OPTIONS)))
      .toEqual({
        kind: 'size',
        reason: '/metadata must not nest deeper than 32 levels',
        path: '/metadata',
      });
  });

  it('takes the path from request.url when only the host is given, and the reverse', () => {
    const read = (request: JsonObject) => {
      const result = parse(
        withField(EDGE, { metadata: [{ request: [request] }] }),
        'edge',
        OPTIONS,
      );
      return result.ok && result.event.source === 'edge' ? result.event.requests : null;
    };
    expect(read({ host: 'h.example', url: 'https://u.example/rest/v1/t' })).toEqual([
      { host: 'h.example', path: '/rest/v1/t' },
    ]);
    expect(read({ path: '/auth/v1', url: 'https://u.example/rest/v1/t' })).toEqual([
      { host: 'u.example', path: '/auth/v1' },
    ]);
    expect(read({ host: 'h.example', path: '/storage', url: 'https://u.example/rest' })).toEqual([
      { host: 'h.example', path: '/storage' },
    ]);
  });

  it('rejects an overlong string and an oversized array', () => {
    expect(rejection(parse(withField(EDGE, { id: 'x'.repeat(257) }), 'edge', OPTIONS)).reason)
      .toBe('/id must have at most 256 characters: got 257');
    const requests = Array.from({ length: 65 }, () => ({ path: '/rest' }));
    expect(
      rejection(parse(withField(EDGE, { metadata: [{ request: requests }] }), 'edge', OPTIONS)),
    )
      .toEqual({
        kind: 'schema',
        reason: '/metadata/0/request must have at most 64 entries: got 65',
        path: '/metadata/0/request',
      });
  });

  it('bounds a host taken from request.url as the schema bounds request.host', () => {
    const host = `${'h'.repeat(1_020)}.example`;
    const metadata: JsonObject[] = [
      { request: [{ host: 'fine.example' }] },
      { request: [{ path: '/x' }, { url: `https://${host}/rest/v1/t` }] },
    ];
    expect(rejection(parse(withField(EDGE, { metadata }), 'edge', OPTIONS))).toEqual({
      kind: 'size',
      reason:
        `/metadata/1/request/1/url must have a host of at most 1024 characters: got ${host.length}`,
      path: '/metadata/1/request/1/url',
    });
    const atLimit = `https://${'h'.repeat(1_016)}.example/`;
    expect(
      parse(withField(EDGE, { metadata: [{ request: [{ url: atLimit }] }] }), 'edge', OPTIONS).ok,
    )
      .toBe(true);
  });

  it('rejects metadata nested deeper than 32 levels', () => {
    let deep: JsonObject = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { child: deep };
    expect(rejection(parse(withField(EDGE, { metadata: [deep] }), 'edge', OPTIONS))).toEqual({
      kind: 'size',
      reason: '/metadata must not nest deeper than 32 levels',
      path: '/metadata',
    });
    let fine: JsonObject = { leaf: 1 };
    for (let i = 0; i < 20; i++) fine = { child: fine };
    expect(parse(withField(EDGE, { metadata: [fine] }), 'edge', OPTIONS).ok).toBe(true);
  });
});

describe('parse: bounded keys per event', () => {
  const hostsRequests = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ host: `h${i}.example`, path: '/rest' }));

  it('accepts an edge event naming 16 distinct request hosts', () => {
    // Repeats of one host count once; requests without a host count for none.
    const request: JsonObject[] = [
      ...hostsRequests(16),
      { host: 'h0.example' },
      { path: '/no-host' },
    ];
    expect(parse(withField(EDGE, { metadata: [{ request }] }), 'edge', OPTIONS).ok).toBe(true);
  });

  it('rejects one naming 17, across its metadata entries, as a cardinality rejection', () => {
    const requests = hostsRequests(17);
    const metadata = [{ request: requests.slice(0, 9) }, { request: requests.slice(9) }];
    expect(rejection(parse(withField(EDGE, { metadata }), 'edge', OPTIONS))).toEqual({
      kind: 'cardinality',
      reason: '/metadata must name at most 16 distinct request hosts: got 17',
      path: '/metadata',
    });
  });
});

describe('parse: each rejection says its kind', () => {
  it.each<[RejectionKind, string | Uint8Array, Source, ParseOptions?]>([
    ['json', '{"id": "a",', 'edge'],
    ['encoding', new Uint8Array([0x7b, 0xff, 0x7d]), 'edge'],
    ['size', JSON.stringify(EDGE), 'edge', { ...OPTIONS, maxBytes: 100 }],
    ['schema', withField(EDGE, { id: '' }), 'edge'],
    ['timestamp', withField(EDGE, { timestamp: 'yesterday' }), 'edge'],
    ['future', withField(EDGE, { timestamp: NOW + 12 * MINUTE }), 'edge'],
    ['too-old', withField(FUNCTION_EDGE, { timestamp: NOW - 91 * DAY }), 'function-edge'],
  ])('%s', (kind, input, source, options = OPTIONS) => {
    expect(rejection(parse(input, source, options)).kind).toBe(kind);
  });
});

describe('parse: derived requests of edge events', () => {
  it.each([
    ['host and path as given', { host: 'h.example', path: '/rest/v1/x', url: 'https://other/y' }, {
      host: 'h.example',
      path: '/rest/v1/x',
    }],
    ['host from url', { path: '/auth', url: 'https://abc.supabase.co/auth/v1/token?x=1' }, {
      host: 'abc.supabase.co',
      path: '/auth',
    }],
    ['path from url', { host: 'h', url: 'https://abc.supabase.co/storage/v1/o?x=1' }, {
      host: 'h',
      path: '/storage/v1/o',
    }],
    ['empty host falls back to url', { host: '', url: 'https://abc.supabase.co:8443/x' }, {
      host: 'abc.supabase.co',
      path: '/x',
    }],
    ['unparseable url', { url: 'not a url' }, { host: null, path: null }],
    ['nothing', {}, { host: null, path: null }],
  ])('%s', (_, request, expected) => {
    const result = parse(withField(EDGE, { metadata: [{ request: [request] }] }), 'edge', OPTIONS);
    expect(result.ok && result.event.source === 'edge' && result.event.requests).toEqual([
      expected,
    ]);
  });

  it('yields one request per (metadata entry, request entry) pair, in order', () => {
    const metadata: JsonObject[] = [
      { request: [{ path: '/a' }, { path: '/b' }] },
      { response: [{ status_code: 200 }] },
      { request: [{ path: '/c' }] },
    ];
    const result = parse(withField(EDGE, { metadata }), 'edge', OPTIONS);
    expect(result.ok && result.event.source === 'edge' && result.event.requests.map((r) => r.path))
      .toEqual(['/a', '/b', '/c']);
  });
});

describe('parse: derived invocations of function-edge events', () => {
  it('yields one invocation per (metadata entry, response entry) pair, none without responses', () => {
    const metadata: JsonObject[] = [
      {
        project_ref: 'p',
        function_id: 'f',
        execution_time_ms: 3,
        response: [{ status_code: 200 }, {}],
      },
      { project_ref: 'p', function_id: null, execution_time_ms: null },
      { project_ref: 'p', response: [{ status_code: null }] },
    ];
    const result = parse(withField(FUNCTION_EDGE, { metadata }), 'function-edge', OPTIONS);
    expect(result.ok && result.event.source === 'function-edge' && result.event.invocations)
      .toEqual([
        { projectRef: 'p', functionId: 'f', executionTimeMs: 3, statusCode: 200 },
        { projectRef: 'p', functionId: 'f', executionTimeMs: 3, statusCode: null },
        { projectRef: 'p', functionId: null, executionTimeMs: null, statusCode: null },
      ]);
  });
});
