/**
 * The ceiling of `npm run bench:api`: a bare `node:http` server that answers each path with
 * bytes captured from the API beforehand (the same answers, same size and headers), computing
 * nothing. What the load generator reaches against it is the most any HTTP service in Node can
 * answer on this machine at that answer size; the API's share of it is what is left to gain.
 *
 *   ANSWERS_FILE=answers.json node tools/bench/api/fixed-body-server.ts
 *
 * `ANSWERS_FILE` is a JSON object from path (with query) to `{ "body": text, "etag": tag }`.
 * Listens on `PORT` (0: any free port) on 127.0.0.1 and prints `listening on <url>`.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

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

const server = createServer((request, response) => {
  const answer = answers.get(request.url ?? '');
  if (answer === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': answer.bytes.byteLength,
    ETag: answer.etag,
    'Cache-Control': 'private, no-cache',
    'Access-Control-Allow-Origin': '*',
  });
  response.end(answer.bytes);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
