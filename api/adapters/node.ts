/**
 * The Node adapter: the fetch handler on `node:http`, through `@hono/node-server`'s request
 * listener. Everything Node refuses before the handler runs is answered here with the API's
 * error envelope and the status RFC 9110 names:
 *
 * | what                                               | answer                                  |
 * | -------------------------------------------------- | --------------------------------------- |
 * | request line and headers over {@link MAX_HEAD_BYTES} | 431 `request_header_fields_too_large` |
 * | no `Host` header                                   | 400 `bad_request`                       |
 * | headers or body not complete within their timeout  | 408 `request_timeout`                   |
 * | anything else that is not HTTP/1.1                 | 400 `bad_request`                       |
 * | a connection beyond `maxConnections`               | closed at once, unanswered              |
 *
 * (A URL over 8 KiB but within the head limit reaches the API, which answers 414.)
 *
 * @module
 */
import { getRequestListener } from '@hono/node-server';
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode, JSON_TYPE } from '../errors.ts';
import { baseUrl, DEFAULT_SERVER_LIMITS, MAX_HEAD_BYTES, type Serve } from './serve.ts';
import { MAX_URL_LENGTH } from '../middleware/request-limits.ts';

const REASON: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function envelope(code: ErrorCode, message: string): { status: number; body: string } {
  return { status: ERROR_STATUS[code], body: JSON.stringify({ error: { code, message } }) };
}

/** What Node's parser refused, as an envelope. */
function refusal(
  error: Error & { code?: string },
  requestTimeoutMs: number,
): { status: number; body: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return envelope(
        'request_header_fields_too_large',
        `the request line and header fields are larger than ${MAX_HEAD_BYTES} bytes together: ` +
          `shorten the headers (and keep the URL under ${MAX_URL_LENGTH} characters)`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return envelope(
        'request_timeout',
        `the request was not complete within ${requestTimeoutMs} ms: send it again, faster`,
      );
    default:
      return envelope(
        'bad_request',
        'the request is not valid HTTP/1.1: check the request line and header fields the client ' +
          'sends',
      );
  }
}

function answerClientError(
  error: Error & { code?: string },
  socket: Duplex,
  requestTimeoutMs: number,
): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { status, body } = refusal(error, requestTimeoutMs);
  socket.end(
    `HTTP/1.1 ${status} ${REASON[status] ?? 'Bad Request'}\r\nContent-Type: ${JSON_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Serves `fetch` on Node, with `options.limits` (see `ServerLimits`; defaults otherwise).
 *
 * @example
 * ```ts
 * const served = await serveNode(api.fetch, { hostname: '127.0.0.1', port: 0 });
 * console.log(served.url);
 * await served.close();
 * ```
 */
export const serveNode: Serve = async (fetch, options) => {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const listener = getRequestListener(fetch);
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
        const { status, body } = envelope(
          'bad_request',
          'the request has no Host header, which HTTP/1.1 requires: add one',
        );
        response.writeHead(status, {
          'Content-Type': JSON_TYPE,
          'Content-Length': Buffer.byteLength(body),
          Connection: 'close',
        });
        response.end(body);
        return;
      }
      void listener(request, response);
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    answerClientError(error, socket, limits.requestTimeoutMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.hostname, () => {
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
