/**
 * HTTP end-to-end steps shared by the in-process, child-process and real-services tests:
 * ingest generated lines over HTTP, then ask every query through every path form and compare
 * with the reference evaluator, validating each response against the OpenAPI document.
 *
 * @module
 */
import { expect } from 'vitest';
import type { EndpointName } from '../../../src/contract/registry.ts';
import type { Row } from '../../../src/contract/rows.ts';
import type { LogEvent, Source } from '../../../src/events/types.ts';
import { evaluateEndpoint } from '../../../src/reference/evaluate.ts';
import { ENDPOINTS } from '../../../src/contract/registry.ts';
import { expectSameAnswer } from '../../support/answers.ts';
import type { CheckedResponse } from './openapi-validator.ts';

/** Sends a request to the API under test (in process or over a socket). */
export type Call = (path: string, init?: RequestInit) => Promise<Response>;

/** A response read whole, with what the OpenAPI check needs. */
export interface ReadResponse extends CheckedResponse {
  readonly headers: Headers;
}

/** Calls `path` and reads the response. */
export async function read(
  call: Call,
  path: string,
  init: RequestInit = {},
): Promise<ReadResponse> {
  const response = await call(path, init);
  return {
    method: init.method ?? 'GET',
    path: path.split('?')[0] ?? path,
    status: response.status,
    contentType: response.headers.get('Content-Type'),
    body: await response.text(),
    headers: response.headers,
  };
}

/** What the ingest route answered, summed over the requests. */
export interface IngestTotals {
  accepted: number;
  rejected: number;
}

/**
 * Posts `lines` as NDJSON, per source, `perRequest` lines at a time, in their order within the
 * source (so equal timestamps keep their input order).
 */
export async function ingestLines(
  call: Call,
  lines: readonly { source: Source; line: string }[],
  check: (response: ReadResponse) => void,
  perRequest = 2_000,
): Promise<IngestTotals> {
  const totals = { accepted: 0, rejected: 0 };
  for (const source of ['edge', 'function-edge'] as const) {
    const ofSource = lines.filter((line) => line.source === source).map((line) => line.line);
    for (let i = 0; i < ofSource.length; i += perRequest) {
      const response = await read(call, `/api/ingest/${source}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-ndjson' },
        body: ofSource.slice(i, i + perRequest).join('\n'),
      });
      check(response);
      expect(response.status, response.body).toBe(202);
      const answer = JSON.parse(response.body) as IngestTotals;
      totals.accepted += answer.accepted;
      totals.rejected += answer.rejected;
    }
  }
  return totals;
}

/** The three paths that answer `endpoint`, for a query string. */
export function pathForms(endpoint: EndpointName, query: string): string[] {
  const record = ENDPOINTS.find((candidate) => candidate.name === endpoint);
  if (record === undefined) throw new Error(`no record ${endpoint}`);
  return [
    `/api/endpoints/${endpoint}?${query}`,
    `/api/endpoints/query/${endpoint}?${query}`,
    `/api/endpoints/query/${record.id}?${query}`,
  ];
}

/** How `now` is known: fixed, or read around each request (the server's clock is real). */
export type Clock = { readonly fixedUs: number } | { readonly nowUs: () => number };

/** Whether `actual` answers `endpoint` as `expected` (the reference) does. */
export function matches(endpoint: EndpointName, actual: readonly Row[], expected: readonly Row[]) {
  try {
    expectSameAnswer(endpoint, actual, expected, '');
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'AssertionError') return false;
    throw error;
  }
}

/** How far behind the store a reused answer may be: the API's default window and staleness. */
const REUSE_US = 1_200_000;

/**
 * Asks every query through every path form and compares with the reference over `events`.
 * With a real clock the answer was computed at some `now` between {@link REUSE_US} before the
 * request was sent and the moment it was read: it must equal the reference at one of a few
 * instants less than a second apart across that span (answers change at most once a second,
 * except `logs.all` entries leaving the retention window, which the generated data keeps clear
 * of). Returns how many answers held rows.
 */
export async function expectAnswersMatchReference(options: {
  readonly call: Call;
  readonly events: readonly LogEvent[];
  readonly queries: readonly (readonly [EndpointName, string])[];
  readonly clock: Clock;
  readonly check: (response: ReadResponse) => void;
}): Promise<number> {
  let nonEmpty = 0;
  for (const [endpoint, query] of options.queries) {
    for (const path of pathForms(endpoint, query)) {
      const label = `GET ${path}`;
      const before = 'fixedUs' in options.clock ? options.clock.fixedUs : options.clock.nowUs();
      const response = await read(options.call, path);
      const after = 'fixedUs' in options.clock ? before : options.clock.nowUs();
      options.check(response);
      const expected = evaluateEndpoint(
        endpoint,
        options.events,
        new URLSearchParams(query),
        before,
      );
      if (!expected.ok) {
        expect(response.status, label).toBe(400);
        expect(JSON.parse(response.body).error.code, label).toBe(expected.error.code);
        continue;
      }
      expect(response.status, `${label}: ${response.body.slice(0, 300)}`).toBe(200);
      const rows = (JSON.parse(response.body) as { result: Row[] }).result;
      if ('nowUs' in options.clock && !matches(endpoint, rows, expected.rows)) {
        const instants = [after, before - REUSE_US / 2, before - REUSE_US - 50_000];
        const other = instants.map((at) =>
          evaluateEndpoint(endpoint, options.events, new URLSearchParams(query), at)
        ).find((answer) => answer.ok && matches(endpoint, rows, answer.rows));
        if (other !== undefined) continue;
      }
      expectSameAnswer(endpoint, rows, expected.rows, label);
      if (rows.some((row) => !('count' in row) || row.count > 0)) nonEmpty += 1;
    }
  }
  return nonEmpty;
}

/**
 * {@link expectAnswersMatchReference} against a service on the real clock, asserting that the
 * comparison was not vacuous: more answers held rows than there were queries.
 */
export async function expectLiveAnswersMatchReference(
  call: Call,
  events: readonly LogEvent[],
  queries: readonly (readonly [EndpointName, string])[],
  check: (response: ReadResponse) => void,
): Promise<void> {
  const clock = { nowUs: () => Date.now() * 1000 };
  const nonEmpty = await expectAnswersMatchReference({ call, events, queries, clock, check });
  expect(nonEmpty).toBeGreaterThan(queries.length);
}
