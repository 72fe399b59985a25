/**
 * The Node adapter: the fetch handler on `node:http` through `@hono/node-server`.
 *
 * The request head (request line and headers) is bounded at {@link MAX_HEAD_BYTES}: longer
 * URLs up to it reach the API, which answers 414; a head beyond it is answered here with a
 * 400 envelope, as Node's parser stops reading it.
 *
 * @module
 */
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import { baseUrl, type Serve } from './serve.ts';

/** Largest request head Node reads, in bytes. */
export const MAX_HEAD_BYTES = 64 * 1024;

function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const message = error.code === 'HPE_HEADER_OVERFLOW'
    ? `the request line and headers are larger than ${MAX_HEAD_BYTES} bytes: shorten the URL`
    : 'the request is not valid HTTP/1.1';
  const body = JSON.stringify({ error: { code: 'bad_request', message } });
  socket.end(
    'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Serves `fetch` on Node.
 *
 * @example
 * ```ts
 * const served = await serveNode(api.fetch, { hostname: '127.0.0.1', port: 0 });
 * console.log(served.url);
 * await served.close();
 * ```
 */
export const serveNode: Serve = async (fetch, options) => {
  const server = createAdaptorServer({
    fetch,
    serverOptions: { maxHeaderSize: MAX_HEAD_BYTES, keepAliveTimeout: 5_000 },
  }) as Server;
  server.on('clientError', answerClientError);
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
