/**
 * The ceiling of `npm run bench:api`: a bare `node:http` server that answers each path with
 * bytes captured from the API beforehand (the same answers, same size and headers), computing
 * nothing. What the load generator reaches against it is the most any HTTP service in Node can
 * answer on this machine at that answer size; the API's share of it is what is left to gain.
 *
 * With `FRAMEWORK=hono`, the same bytes come from a Hono app of one route through
 * `@hono/node-server`, as the API's are, with `MIDDLEWARES` (default 0) pass-through middlewares
 * before it (the API has six, `api/app.ts`; five without a rate limit, as `bench:api` runs it):
 * the floor of the framework the API is built on,
 * beneath any work of the API's own.
 *
 *   ANSWERS_FILE=answers.json node tools/bench/api/fixed-body-server.ts
 *   ANSWERS_FILE=answers.json FRAMEWORK=hono MIDDLEWARES=5 \
 *     node tools/bench/api/fixed-body-server.ts
 *
 * `ANSWERS_FILE` is a JSON object from path (with query) to `{ "body": text, "etag": tag }`.
 * Listens on `PORT` (0: any free port) on 127.0.0.1 and prints `listening on <url>`.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import process from 'node:process';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';

interface Captured {
  readonly body: string;
  readonly etag: string;
}

const file = process.env.ANSWERS_FILE;
if (file === undefined) throw new Error('set ANSWERS_FILE to the JSON file of captured answers');
const captured: Record<string, Captured> = JSON.parse(readFileSync(file, 'utf8'));
const answers = new Map(
  Object.entries(captured).map(([path, { body, etag }]) => [path, {
    bytes: Buffer.from(body, 'utf8'),
    etag,
  }]),
);

/** The headers the API answers with, but for the entity tag. */
const HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'private, no-cache',
  'Access-Control-Allow-Origin': '*',
} as const;

/** Bare `node:http`: the ceiling. */
function bare(): RequestListener {
  return (request, response) => {
    const answer = answers.get(request.url ?? '');
    if (answer === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      ...HEADERS,
      'Content-Length': answer.bytes.byteLength,
      ETag: answer.etag,
    });
    response.end(answer.bytes);
  };
}

/** A Hono app of one route after `middlewares` pass-through middlewares. */
function hono(middlewares: number): RequestListener {
  const app = new Hono<{ Bindings: HttpBindings }>();
  for (let i = 0; i < middlewares; i++) {
    app.use(async (_c, next) => {
      await next();
    });
  }
  app.get('/api/endpoints/:name', (c) => {
    // The request's target as received, as the bare server looks it up (not re-encoded).
    const answer = answers.get(c.env.incoming.url ?? '');
    if (answer === undefined) return c.body(null, 404);
    return new Response(answer.bytes, {
      headers: {
        ...HEADERS,
        'Content-Length': String(answer.bytes.byteLength),
        ETag: answer.etag,
      },
    });
  });
  return getRequestListener(app.fetch);
}

const framework = process.env.FRAMEWORK ?? 'none';
if (framework !== 'none' && framework !== 'hono') {
  throw new Error(`FRAMEWORK must be none or hono, not ${framework}`);
}
const givenMiddlewares = process.env.MIDDLEWARES ?? '0';
const middlewares = givenMiddlewares === '' ? Number.NaN : Number(givenMiddlewares);
if (!Number.isSafeInteger(middlewares) || middlewares < 0) {
  throw new Error(`MIDDLEWARES must be a natural number, not ${process.env.MIDDLEWARES}`);
}
const server = createServer(framework === 'hono' ? hono(middlewares) : bare());
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
