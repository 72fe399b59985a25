/**
 * What Node's HTTP parser refuses before the fetch handler runs, answered with the API's error
 * envelope and the status RFC 9110 names, then closed for good:
 *
 * | what                                                   | answer                                 |
 * | ------------------------------------------------------ | -------------------------------------- |
 * | request line and headers over {@link MAX_HEAD_BYTES}   | 431 `request_header_fields_too_large`  |
 * | nothing sent within the header timeout                 | 408 `request_timeout`                  |
 * | a request not complete within its timeout              | 408 `request_timeout`                  |
 * | anything else that is not HTTP/1.1                     | 400 `bad_request`                      |
 *
 * Ending a socket only sends a FIN: a client that never closes its side would keep the
 * connection, and its place under the connection cap, for as long as it likes. So the socket is
 * destroyed once the client has closed, or after {@link LINGER_MS} at most.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode, JSON_HEADERS } from '../errors.ts';
import { MAX_URL_LENGTH } from '../middleware/request-limits.ts';
import { MAX_HEAD_BYTES, type Refusal } from '../refusals.ts';

/**
 * How long a refused connection stays open after its answer, in ms: long enough for the client
 * to read the answer before a close that, with unread bytes of the client's, the operating system
 * turns into a reset (which can discard the answer); short enough that refusals cannot pile up.
 */
export const LINGER_MS = 1_000;

const REASON_PHRASE: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** The timeouts the messages name, in ms. */
export interface ParserTimeouts {
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
}

interface Refused {
  readonly reason: Refusal;
  readonly code: ErrorCode;
  readonly message: string;
}

function refused(
  error: Error & { code?: string },
  socket: Duplex,
  timeouts: ParserTimeouts,
): Refused {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        reason: 'head_too_large',
        code: 'request_header_fields_too_large',
        message:
          `the request line and header fields are larger than ${MAX_HEAD_BYTES} bytes together: ` +
          `shorten the headers (and keep the URL under ${MAX_URL_LENGTH} characters)`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // Node names one error for both timeouts; a connection that sent nothing is the cheap attack.
      return socket instanceof Socket && socket.bytesRead === 0
        ? {
          reason: 'no_request',
          code: 'request_timeout',
          message: `no request arrived within ${timeouts.headersTimeoutMs} ms of connecting: ` +
            'send the request as soon as the connection is open',
        }
        : {
          reason: 'request_timeout',
          code: 'request_timeout',
          message:
            `the request was not complete within ${timeouts.requestTimeoutMs} ms: send it again, faster`,
        };
    default:
      return {
        reason: 'bad_request',
        code: 'bad_request',
        message:
          'the request is not valid HTTP/1.1: check the request line and header fields the ' +
          'client sends',
      };
  }
}

/** A whole HTTP/1.1 answer with the envelope of `code`, closing the connection. */
export function rawEnvelope(code: ErrorCode, message: string): string {
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ error: { code, message } });
  const headers = Object.entries(JSON_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${REASON_PHRASE[status] ?? 'Bad Request'}\r\n${headers.join('')}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Ends `socket` after `text`, then destroys it when the client has closed or after the linger. */
export function endAndClose(socket: Duplex, text: string): void {
  socket.end(text);
  // What the client still sends is read and dropped, so that its close is seen.
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/**
 * Answers what Node's parser refused (the server's `clientError`) and closes the connection;
 * tells `onRefusal` why. A client that reset the connection is not a refusal.
 */
export function answerParserRefusal(
  error: Error & { code?: string },
  socket: Duplex,
  timeouts: ParserTimeouts,
  onRefusal: (reason: Refusal) => void,
): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { reason, code, message } = refused(error, socket, timeouts);
  onRefusal(reason);
  endAndClose(socket, rawEnvelope(code, message));
}
