/**
 * The Node adapter: the fetch handler on `node:http`, through `@hono/node-server`'s request
 * listener, with the bounds of `ServerLimits` applied. Everything refused before the handler runs
 * is answered here with the API's error envelope (`parser-refusals.ts`: 400, 408, 431; a request
 * without a valid `Host` or with a target that is not a path, such as `OPTIONS *`: 400
 * `bad_request`), and every refusal is told to `onRefusal`. Connections beyond `maxConnections`
 * or `maxConnectionsPerAddress`, and those whose client does not read its answer, are closed
 * unanswered (`connection-guard.ts`). Requests are handled `MAX_HANDLING` at a time, the others
 * waiting their turn unread (`request-turns.ts`).
 *
 * (A URL over 8 KiB but within the head limit reaches the API, which answers 414.)
 *
 * @module
 */
import { getRequestListener, RequestError } from '@hono/node-server';
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../src/logger.ts';
import { ERROR_STATUS, errorResponse, INTERNAL_MESSAGE, JSON_HEADERS } from '../errors.ts';
import { RequestTurns } from './request-turns.ts';
import { guardConnections } from './connection-guard.ts';
import { NO_HOST_MESSAGE } from './host-header.ts';
import { writeDirect } from './node-direct.ts';
import { answerParserRefusal } from './parser-refusals.ts';
import { MAX_HEAD_BYTES, type Refusal } from '../refusals.ts';
import { baseUrl, DEFAULT_SERVER_LIMITS, type Serve } from './serve.ts';

/**
 * The answer when the listener fails: a request it could not turn into a `Request` (a
 * `RequestError`: a malformed `Host` such as `a b` or `x/y`, a target that is not a path such as
 * `OPTIONS *`, a backslash in the path) is 400 and a refusal; anything else (the app's handler
 * never rejects) is logged and 500. Both end the connection, as every refusal of the adapter does:
 * a client that sent what could not be read may send more of it, and after an unforeseen failure
 * nothing is known of the connection's state.
 */
function listenerFailure(
  error: unknown,
  onRefusal: (reason: Refusal) => void,
  logger: Logger,
): Response {
  if (!(error instanceof RequestError)) {
    logger.error({ err: error }, 'the request listener failed');
    return errorResponse('internal', INTERNAL_MESSAGE, { Connection: 'close' });
  }
  onRefusal('bad_request');
  return errorResponse(
    'bad_request',
    `${error.message}: send a path starting with / and a Host header of a host name (and port)`,
    { Connection: 'close' },
  );
}

/**
 * Serves `fetch` on Node, with `options.limits` (see `ServerLimits`; defaults otherwise).
 *
 * @example
 * ```ts
 * const served = await serveNode(api.fetch, { hostname: '127.0.0.1', port: 0, logger });
 * console.log(served.url);
 * await served.close();
 * ```
 */
export const serveNode: Serve = async (fetch, options) => {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const onRefusal = options.onRefusal ?? ((_reason: Refusal) => {});
  const turns = options.turns ?? new RequestTurns({ nowMs: () => performance.now() });
  const listener = getRequestListener(
    async (request, { incoming, outgoing }) =>
      writeDirect(
        await fetch(request, { remoteAddress: incoming.socket.remoteAddress ?? null }),
        outgoing,
      ),
    {
      errorHandler: (error) => listenerFailure(error, onRefusal, options.logger),
    },
  );
  const server = createServer(
    {
      maxHeaderSize: MAX_HEAD_BYTES,
      keepAliveTimeout: 5_000,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: limits.checkIntervalMs,
      // Answered below with the envelope rather than Node's bare 400.
      requireHostHeader: false,
    },
    (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers.host === undefined) {
        onRefusal('bad_request');
        const body = JSON.stringify({ error: { code: 'bad_request', message: NO_HOST_MESSAGE } });
        response.writeHead(ERROR_STATUS.bad_request, {
          ...JSON_HEADERS,
          'Content-Length': Buffer.byteLength(body),
          Connection: 'close',
        });
        response.end(body);
        return;
      }
      turns.admit({
        handle: () => listener(request, response),
        gone: () => response.destroyed || request.socket.destroyed,
        // Pipelined requests of one connection take turns among themselves.
        line: request.socket,
      });
    },
  );
  server.maxConnections = limits.maxConnections;
  guardConnections(server, {
    maxPerAddress: limits.maxConnectionsPerAddress,
    writeTimeoutMs: limits.writeTimeoutMs,
    checkIntervalMs: limits.checkIntervalMs,
    onRefusal,
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    answerParserRefusal(error, socket, limits, onRefusal);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // While the event loop is busy, new connections wait in the listen queue: up to the cap of
    // them (the system may bound it lower), where past Node's default of 511 they were dropped,
    // each costing its client a 1 s retry. Accepted past the cap, they are closed (`drop`).
    const backlog = Math.max(511, limits.maxConnections);
    server.listen(options.port, options.hostname, backlog, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: baseUrl(options.hostname, port),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeIdleConnections();
      }),
  };
};
