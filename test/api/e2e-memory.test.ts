/**
 * End to end in one process on the embedded default (memory store, fixed clock): generated
 * events (late and invalid ones included) ingested over HTTP, then every endpoint, interval and
 * tier asked by name, by name under /query/ and by id, compared with the reference evaluator;
 * every response validated against the OpenAPI document.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { generatedStream, queriesFor } from '../rollup/fold-and-read.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { expectAnswersMatchReference, ingestLines, read } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

describe('HTTP API on the embedded default', () => {
  const app = testApp();
  const check = responseValidator(app.api.document);
  const stream = generatedStream(TEST_NOW_US);

  beforeAll(async () => {
    const totals = await ingestLines(app.call, stream.lines, check);
    expect(totals.accepted).toBe(stream.events.length);
    expect(totals.rejected).toBe(stream.lines.length - stream.events.length);
    expect(totals.rejected).toBeGreaterThan(0);
  }, 120_000);

  test('every endpoint, interval, tier and path form equals the reference', async () => {
    const nonEmpty = await expectAnswersMatchReference({
      call: app.call,
      events: stream.events,
      queries: queriesFor(stream.events, TEST_NOW_US),
      clock: { fixedUs: TEST_NOW_US },
      check,
    });
    expect(nonEmpty).toBeGreaterThan(150);
  }, 120_000);

  test('the listing, the health routes and the document validate too', async () => {
    for (const path of ['/api/endpoints', '/healthz', '/readyz', '/openapi.json', '/metrics']) {
      const response = await read(app.call, path);
      expect(response.status, path).toBe(200);
      check(response);
    }
  });
});
