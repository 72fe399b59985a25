/**
 * An Upstash-REST-compatible HTTP endpoint in front of a Redis server, so that `@upstash/redis`
 * (the REST transport of the store) runs against the same local Redis as node-redis.
 *
 * Protocol, as the Upstash REST API and `@upstash/redis` use it:
 * - every route requires `Authorization: Bearer <token>` (401 otherwise);
 * - `POST /` with a JSON array command (`["SET","k","v"]`) answers `{"result": …}`, or 400
 *   `{"error": "…"}` when Redis refuses it;
 * - `POST /pipeline` with an array of commands answers an array of `{"result"}`/`{"error"}`,
 *   one per command, in order, not atomic;
 * - `POST /multi-exec` runs the commands in one MULTI/EXEC transaction (atomic); same answer
 *   shape, or 400 `{"error"}` when Redis aborts the whole transaction;
 * - `GET|POST /<command>/<arg>/…` runs a command given in the path (URL-decoded segments); a
 *   POST body is appended as the last argument;
 * - with request header `Upstash-Encoding: base64`, every string of a result (recursively in
 *   arrays; not error messages) is base64 of its bytes, which is what `@upstash/redis` asks
 *   for by default and decodes.
 *
 * Commands that would block or change the state of the shared connection (SUBSCRIBE, MULTI,
 * SELECT, blocking pops, …) are refused: the proxy multiplexes every request on one connection.
 *
 * Run it alone with `node tools/services/upstash-rest.ts`; configuration from the environment:
 * `UPSTASH_REST_REDIS_URL` (default `redis://127.0.0.1:16379`, the development Redis), `UPSTASH_REST_TOKEN` (default
 * {@link DEFAULT_TOKEN}), `UPSTASH_REST_HOST` (default `127.0.0.1`), `UPSTASH_REST_PORT`
 * (default 18079).
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, ErrorReply, RESP_TYPES } from 'redis';
import { transaction } from '../../src/store/redis-transaction.ts';
import { messageOf } from '../../src/text/error-message.ts';

/** The token of the local development endpoint. Not a secret: it guards nothing but loopback. */
export const DEFAULT_TOKEN = 'local-dev-token';

/** Options of {@link startUpstashRest}. */
export interface UpstashRestOptions {
  /** The Redis to proxy to, e.g. `redis://127.0.0.1:6379`. */
  readonly redisUrl: string;
  /** The bearer token every request must carry. */
  readonly token: string;
  /** Listening address. Default `127.0.0.1`. */
  readonly host?: string;
  /** Listening port; 0 picks a free one. Default 18079. */
  readonly port?: number;
}

/** A running endpoint. */
export interface UpstashRestServer {
  /** Base URL, e.g. `http://127.0.0.1:8079`: the `url` of `new Redis({ url, token })`. */
  readonly url: string;
  /** Stops listening and closes the Redis connection. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Refused: they block the shared connection or change its state for every other caller. */
const REFUSED = new Set([
  'SUBSCRIBE',
  'PSUBSCRIBE',
  'SSUBSCRIBE',
  'UNSUBSCRIBE',
  'PUNSUBSCRIBE',
  'SUNSUBSCRIBE',
  'MONITOR',
  'MULTI',
  'EXEC',
  'DISCARD',
  'WATCH',
  'UNWATCH',
  'SELECT',
  'QUIT',
  'RESET',
  'BLPOP',
  'BRPOP',
  'BLMOVE',
  'BRPOPLPUSH',
  'BLMPOP',
  'BZPOPMIN',
  'BZPOPMAX',
  'BZMPOP',
]);

type Command = string[];

/** Bulk and simple strings as bytes, so that base64 encodes exactly what Redis holds. */
const BYTES = { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.SIMPLE_STRING]: Buffer };
type Outcome = { result: unknown } | { error: string };

/** A request the proxy refuses before Redis sees it: answered with `status` and `message`. */
class RequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * Connects to Redis and starts listening.
 *
 * @example
 * ```ts
 * const rest = await startUpstashRest({ redisUrl: 'redis://127.0.0.1:6379', token: 't', port: 0 });
 * const redis = new Redis({ url: rest.url, token: 't' }); // from '@upstash/redis'
 * await rest.close();
 * ```
 */
export async function startUpstashRest(options: UpstashRestOptions): Promise<UpstashRestServer> {
  const client = createClient({
    url: options.redisUrl,
    socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
  });
  client.on('error', (error: unknown) => console.error(`upstash-rest: redis: ${messageOf(error)}`));
  await client.connect();
  const redis = client.withTypeMapping(BYTES);
  const expectedToken = digest(options.token);

  const run = async (command: Command): Promise<unknown> => await redis.sendCommand(command);

  // Through `transaction`: node-redis's `multi()` would decode EXEC's replies as text.
  const runTransaction = async (commands: Command[]): Promise<Outcome[]> => {
    const replies = await transaction(client, commands, BYTES);
    // EXEC ran: some commands may have failed at run time, the others took effect.
    return replies.map((reply) =>
      reply instanceof ErrorReply ? { error: reply.message } : { result: reply }
    );
  };

  const handle = async (request: IncomingMessage): Promise<{ status: number; body: unknown }> => {
    if (!authorized(request.headers.authorization, expectedToken)) {
      return { status: 401, body: { error: 'Unauthorized' } };
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const encode = (value: unknown) => encodeResult(value, base64);

    if (request.method !== 'GET' && request.method !== 'POST') {
      throw new RequestError(
        405,
        `method ${request.method} not allowed: use POST (or GET for path commands)`,
      );
    }
    if (path === '/pipeline' || path === '/multi-exec') {
      if (request.method !== 'POST') throw new RequestError(405, `${path} takes POST`);
      const commands = parseCommandList(await readJson(request));
      const outcomes = path === '/pipeline'
        ? await Promise.all(commands.map((command) => outcome(run(command))))
        : await runTransaction(commands);
      return {
        status: 200,
        body: outcomes.map((o) => 'error' in o ? o : { result: encode(o.result) }),
      };
    }
    const command = path === '/'
      ? parseCommand(await readJson(request))
      : await pathCommand(path, request);
    return { status: 200, body: { result: encode(await run(command)) } };
  };

  const server = createServer((request, response) => {
    handle(request).then(
      ({ status, body }) => reply(response, status, body),
      (error: unknown) => {
        if (error instanceof RequestError) {
          return reply(response, error.status, { error: error.message });
        }
        if (error instanceof ErrorReply) return reply(response, 400, { error: error.message });
        console.error(`upstash-rest: ${request.method} ${request.url}: ${messageOf(error)}`);
        reply(response, 503, { error: `Redis unavailable: ${messageOf(error)}` });
      },
    );
  });
  // Longer than the keep-alive of undici's fetch (which @upstash/redis uses), so the server never
  // closes an idle connection at the moment the client reuses it for a POST it will not retry.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 18079, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await client.close().catch(() => client.destroy());
    },
  };
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  // Digests of equal length, so the comparison takes the same time whatever the token given.
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

async function outcome(pending: Promise<unknown>): Promise<Outcome> {
  try {
    return { result: await pending };
  } catch (error) {
    if (error instanceof ErrorReply) return { error: error.message };
    throw error;
  }
}

/** Strings (and bytes) as UTF-8 text, or as base64 of their bytes; arrays recursively. */
function encodeResult(value: unknown, base64: boolean): unknown {
  if (Buffer.isBuffer(value)) return base64 ? value.toString('base64') : value.toString('utf8');
  if (typeof value === 'string') {
    return base64 ? Buffer.from(value, 'utf8').toString('base64') : value;
  }
  if (Array.isArray(value)) return value.map((item) => encodeResult(item, base64));
  if (value instanceof ErrorReply) return value.message;
  return value;
}

function parseCommand(value: unknown): Command {
  if (!Array.isArray(value) || value.length === 0) {
    throw new RequestError(
      400,
      `a command is a non-empty JSON array such as ["GET","key"]; got ${preview(value)}`,
    );
  }
  const command = value.map((arg: unknown) => {
    if (typeof arg === 'string') return arg;
    if (typeof arg === 'number' || typeof arg === 'boolean') return String(arg);
    throw new RequestError(
      400,
      `command arguments must be strings or numbers; got ${preview(arg)} in ${preview(value)}`,
    );
  });
  const name = command[0]?.toUpperCase() ?? '';
  const blocking = (name === 'XREAD' || name === 'XREADGROUP') &&
    command.some((arg) => arg.toUpperCase() === 'BLOCK');
  if (REFUSED.has(name) || blocking) {
    throw new RequestError(
      400,
      `ERR '${command[0]}' is not supported by this REST endpoint: it would block or change the ` +
        'state of the connection it shares with every other request (use /multi-exec for transactions)',
    );
  }
  return command;
}

function parseCommandList(value: unknown): Command[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new RequestError(
      400,
      `expected a non-empty JSON array of commands; got ${preview(value)}`,
    );
  }
  return value.map(parseCommand);
}

async function pathCommand(path: string, request: IncomingMessage): Promise<Command> {
  const segments = path.split('/').filter((segment) => segment !== '').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new RequestError(400, `invalid percent-encoding in path segment '${segment}'`);
    }
  });
  const body = request.method === 'POST' ? (await readBody(request)).toString('utf8') : '';
  return parseCommand(body === '' ? segments : [...segments, body]);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const body = (await readBody(request)).toString('utf8');
  try {
    return JSON.parse(body);
  } catch {
    throw new RequestError(400, `the request body is not JSON: ${preview(body)}`);
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) {
      throw new RequestError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  response.end(json);
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function portFromEnv(): number {
  const raw = process.env['UPSTASH_REST_PORT'] ?? '18079';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`UPSTASH_REST_PORT must be a port number (0-65535): current value is '${raw}'`);
  }
  return port;
}

if (import.meta.main) {
  const server = await startUpstashRest({
    redisUrl: process.env['UPSTASH_REST_REDIS_URL'] ?? 'redis://127.0.0.1:16379',
    token: process.env['UPSTASH_REST_TOKEN'] ?? DEFAULT_TOKEN,
    host: process.env['UPSTASH_REST_HOST'] ?? '127.0.0.1',
    port: portFromEnv(),
  });
  console.log(`upstash-rest: listening on ${server.url}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.close().then(() => process.exit(0), () => process.exit(1));
    });
  }
}
