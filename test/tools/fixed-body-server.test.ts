/**
 * `npm run bench:api`'s fixed-bytes server (tools/bench/api/fixed-body-server.ts): the ceiling on
 * bare `node:http` and a framework's floor through Hono answer each captured path with the same
 * bytes and the same headers, so that what separates their figures is the framework alone; an
 * unknown path is a 404 in both, and a setting it does not know stops it with its name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, expect, test } from 'vitest';

const directory = mkdtempSync(join(tmpdir(), 'fixed-body-'));
const file = join(directory, 'answers.json');
const PATH = '/api/endpoints/logs.all?project=abcdefghijklmnopqrst&project_tier=PRO';
const BODY = '{"result":[{"id":"é","timestamp":1}]}';
/** bench:api's hostile workload: escapes a re-encoding server would change. */
const ESCAPED = '/api/endpoints/usage.api-counts?project=(a%2B)%2B%24&interval=daily';
writeFileSync(
  file,
  JSON.stringify({
    [PATH]: { body: BODY, etag: 'W/"v1"' },
    [ESCAPED]: { body: '{"result":[]}', etag: 'W/"v2"' },
  }),
);
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(directory, { recursive: true, force: true });
});

/** Starts the server with `env`; its URL once it listens, or its exit code and error output. */
function start(
  env: Record<string, string>,
): Promise<{ url: string } | { code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['tools/bench/api/fixed-body-server.ts'], {
    env: { ...process.env, ANSWERS_FILE: file, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    if (child.stdout === null) throw new Error('no standard output');
    createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /^listening on (\S+)$/.exec(line)?.[1];
      if (url !== undefined) resolve({ url });
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

/** The answer to `path`: status, body bytes and the headers a client of the API reads. */
async function ask(url: string, path: string) {
  const response = await fetch(`${url}${path}`);
  const body = Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries(
    ['content-type', 'content-length', 'etag', 'cache-control', 'access-control-allow-origin']
      .map((name) => [name, response.headers.get(name)]),
  );
  return { status: response.status, body: body.toString('hex'), headers };
}

test('the ceiling and the Hono floors answer the same bytes and headers', async () => {
  const servers = await Promise.all([
    start({}),
    start({ FRAMEWORK: 'hono' }),
    start({ FRAMEWORK: 'hono', MIDDLEWARES: '5' }),
  ]);
  const answers = [];
  for (const server of servers) {
    if (!('url' in server)) throw new Error(`the server exited ${server.code}: ${server.stderr}`);
    answers.push({
      found: await ask(server.url, PATH),
      escaped: await ask(server.url, ESCAPED),
      missing: await ask(server.url, '/nope'),
    });
  }
  const [bare] = answers;
  expect(bare?.found).toEqual({
    status: 200,
    body: Buffer.from(BODY).toString('hex'),
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(BODY)),
      etag: 'W/"v1"',
      'cache-control': 'private, no-cache',
      'access-control-allow-origin': '*',
    },
  });
  expect(bare?.escaped).toMatchObject({ status: 200, headers: { etag: 'W/"v2"' } });
  expect(bare?.missing.status).toBe(404);
  for (const answer of answers.slice(1)) {
    expect(answer.found).toEqual(bare?.found);
    expect(answer.escaped).toEqual(bare?.escaped);
    expect(answer.missing.status).toBe(404);
  }
});

test('a framework or a middleware count it does not know stops it, named', async () => {
  const framework = await start({ FRAMEWORK: 'express' });
  expect(framework).toMatchObject({ code: 1, stderr: expect.stringContaining('FRAMEWORK') });
  for (const count of ['-1', '', 'six']) {
    const middlewares = await start({ FRAMEWORK: 'hono', MIDDLEWARES: count });
    expect(middlewares).toMatchObject({ code: 1, stderr: expect.stringContaining('MIDDLEWARES') });
  }
});
