/**
 * The Node adapter's side of api/direct-body.ts: a response whose body is offered to be written
 * directly gets its head written here, from the response as the app's middleware left it, and its
 * source writes to the `ServerResponse` from then on; `@hono/node-server` is told the response is
 * already sent. The source learns when the connection closes, whoever closed it.
 *
 * @module
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { type ByteSink, directSource, mayOfferDirect } from '../direct-body.ts';

/**
 * Writes `response` to `outgoing` itself when its body was offered, and answers the response that
 * tells the listener so; else answers `response` unchanged.
 */
export function writeDirect(
  response: Response,
  outgoing: ServerResponse | Http2ServerResponse,
): Response {
  // The adapter serves HTTP/1.1 only; any other response reads the body as a web stream.
  if (!(outgoing instanceof ServerResponse)) return response;
  // Only a live answer offers its body. Any other response is left alone: asking
  // `@hono/node-server`'s light response for its body builds a full one, which copies the body
  // (a 57 KB answer cost 20 to 30 µs more, `npm run bench:api -- --only 5min --profile DIR`),
  // and asking it for its headers builds a `Headers` object (2.6% of a CPU profile of the API
  // answering reused answers under load).
  if (!mayOfferDirect(response)) return response;
  const source = directSource(response.body);
  if (source === undefined) return response;
  const head: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    head[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) head['set-cookie'] = cookies;
  outgoing.writeHead(response.status, head);
  outgoing.flushHeaders();
  outgoing.once('close', () => source.gone());
  source.attach(socketSink(outgoing));
  return RESPONSE_ALREADY_SENT;
}

function socketSink(outgoing: ServerResponse): ByteSink {
  return {
    write: (bytes) => {
      outgoing.write(bytes);
    },
    queuedBytes: () => outgoing.writableLength,
    end: () => {
      outgoing.end();
    },
    // Without the reason: an error on the socket would reach the server as a client's error.
    cut: () => {
      outgoing.destroy();
    },
  };
}
