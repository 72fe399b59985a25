/**
 * Issue 31 on Deno (`deno task api`), as far as `Deno.serve` lets the adapter act: a client that
 * never reads its answer is cut after the write timeout, a request without a valid `Host` is
 * 400 with the envelope, and requests without a valid key are rate-limited by their address.
 * (Deno takes no connection cap nor header timeout: docs/API.md.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ChildService, embeddedEnv, startChild } from '../helpers/child.ts';
import { exchange, parseResponse } from '../helpers/raw-http.ts';
import { answerWithHeld, untilTrue } from './hostile-steps.ts';

const RATE_LIMIT_BURST = 5;

let service: ChildService;
let port: number;

beforeAll(async () => {
  service = await startChild(
    'node_modules/.bin/deno',
    ['task', 'api'],
    embeddedEnv({
      HTTP_WRITE_TIMEOUT_MS: '1000',
      HTTP_ANSWER_MAX_BYTES: String(64 * 1024 * 1024),
      // A bucket small enough to empty here; the keyed ingest above takes 2 of its key's.
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: String(RATE_LIMIT_BURST),
    }),
  );
  port = Number(new URL(service.url).port);
});

afterAll(async () => {
  await service.stop();
});

async function refused(reason: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const line = new RegExp(`^http_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return Number(line?.[1] ?? 0);
}

describe('on Deno', () => {
  test('a client that never reads is cut after the write timeout', async () => {
    const project = 'denoslowreader';
    for (let part = 0; part < 2; part++) {
      const lines = Array.from({ length: 50 }, (_, i) =>
        JSON.stringify({
          id: `e${part * 50 + i}`,
          timestamp: Date.now() * 1000 - 1_000_000 + i,
          project,
          event_message: 'GET | 200',
          metadata: [{ note: 'x'.repeat(120_000) }],
        }));
      const response = await fetch(`${service.url}/api/ingest/edge`, {
        method: 'POST',
        headers: { 'X-API-KEY': service.key },
        body: lines.join('\n'),
      });
      expect(await response.json()).toMatchObject({ accepted: 50 });
    }
    const answer = answerWithHeld(
      port,
      `/api/endpoints/logs.all?project=${project}&project_tier=FREE`,
      service.key,
    );
    try {
      expect(await untilTrue(async () => (await refused('slow_reader')) === 1)).toBe(true);
      const { contentLength, bodyBytes } = await answer.readRest();
      expect(bodyBytes).toBeLessThan(contentLength);
    } finally {
      answer.socket.destroy();
    }
  });

  test.each([
    ['no Host', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['a Host with a space', 'GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'],
  ])('%s is 400 with the envelope and nosniff', async (_name, request) => {
    const answer = parseResponse(await exchange(port, request));
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 400,
      body: { error: { code: 'bad_request', message: expect.any(String) } },
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  test('requests without a valid key are rate-limited by their address', async () => {
    // Twice the burst at a refill of one a second: however slowly they are sent, some are 429.
    const statuses: number[] = [];
    for (let i = 0; i < 2 * RATE_LIMIT_BURST; i++) {
      const response = await fetch(`${service.url}/api/endpoints`);
      await response.body?.cancel();
      statuses.push(response.status);
    }
    // The file's earlier keyless requests (readiness, metrics, the document) took tokens of the
    // same address: what is left of the burst is 401, then 429.
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(statuses).toContain(429);
  });
});
