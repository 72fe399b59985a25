/**
 * The CORS middleware (api/middleware/cors.ts) leaves alone a response that carries the answers'
 * headers itself (`carryingCors`), and sets them on every other.
 */
import { Hono } from 'hono';
import { expect, test } from 'vitest';
import type { ApiEnv } from '../../../api/context.ts';
import { ANSWER_CORS_HEADERS, carryingCors, cors } from '../../../api/middleware/cors.ts';

/** A value the middleware never writes: kept only where it is left alone. */
const OWN = 'ETag';

function app(): Hono<ApiEnv> {
  const served = new Hono<ApiEnv>();
  served.use(cors());
  const ownHeaders = { ...ANSWER_CORS_HEADERS, 'Access-Control-Expose-Headers': OWN };
  served.get('/carried', (c) => carryingCors(c, new Response('x', { headers: ownHeaders })));
  // Marked, but the request ends with another response: that one gets the middleware's.
  served.get('/replaced', (c) => {
    carryingCors(c, new Response('x', { headers: ownHeaders }));
    throw new Error('after the mark');
  });
  served.onError(() => new Response('failed', { status: 500 }));
  served.get('/plain', () => new Response('x'));
  return served;
}

test('a response carrying its CORS headers is left alone; every other gets them', async () => {
  const served = app();
  const exposed = async (path: string) =>
    (await served.request(path)).headers.get('Access-Control-Expose-Headers');
  expect(await exposed('/carried')).toBe(OWN);
  const full = ANSWER_CORS_HEADERS['Access-Control-Expose-Headers'];
  expect(full?.split(',')).toContain('Retry-After');
  expect(await exposed('/plain')).toBe(full);
  expect(await exposed('/replaced')).toBe(full);
  for (const path of ['/carried', '/plain', '/replaced']) {
    expect((await served.request(path)).headers.get('Access-Control-Allow-Origin')).toBe('*');
  }
});
