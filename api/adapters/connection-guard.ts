/**
 * Bounds on connections that Node's HTTP server does not set itself: at most `maxPerAddress`
 * open connections from one client (see `api/address-prefix.ts`), and no answer left waiting on
 * a client that does not read it.
 *
 * A client that does not read is found without reading any clock: every `checkIntervalMs` each
 * connection with bytes of an answer still to send is looked at, and one whose sent bytes have
 * not moved for `writeTimeoutMs` (counted in checks) is cut. Its answer, held by the process until
 * the client takes it, is then released: an answer's memory is held at most that long.
 *
 * @module
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { addressPrefix } from '../address-prefix.ts';
import type { Refusal } from '../refusals.ts';

/** Options of {@link guardConnections}. */
export interface ConnectionGuardOptions {
  /** Most open connections per client address; 0: no limit. */
  readonly maxPerAddress: number;
  readonly writeTimeoutMs: number;
  readonly checkIntervalMs: number;
  readonly onRefusal: (reason: Refusal) => void;
}

interface Watched {
  /** Bytes handed to the operating system at the last check. */
  sent: number;
  /** Consecutive checks with bytes waiting and none sent. */
  stalledChecks: number;
}

/**
 * Guards `server`'s connections until the server closes.
 *
 * @example
 * ```ts
 * guardConnections(server, { maxPerAddress: 64, writeTimeoutMs: 10_000, checkIntervalMs: 1_000,
 *   onRefusal: (reason) => metrics.countRefused(reason) });
 * ```
 */
export function guardConnections(server: Server, options: ConnectionGuardOptions): void {
  const open = new Map<Socket, Watched>();
  const perAddress = new Map<string, number>();
  const stalledChecksAllowed = Math.max(
    1,
    Math.ceil(options.writeTimeoutMs / options.checkIntervalMs),
  );

  // Before the HTTP server's own listener: a refused connection is closed before anything reads it.
  server.prependListener('connection', (socket: Socket) => {
    // A socket without an address is already closed: counted, and let go, under one name.
    const key = addressPrefix(socket.remoteAddress ?? 'unknown');
    const count = perAddress.get(key) ?? 0;
    if (options.maxPerAddress > 0 && count >= options.maxPerAddress) {
      socket.destroy();
      options.onRefusal('address_cap');
      return;
    }
    perAddress.set(key, count + 1);
    open.set(socket, { sent: 0, stalledChecks: 0 });
    socket.once('close', () => {
      open.delete(socket);
      const left = (perAddress.get(key) ?? 1) - 1;
      if (left === 0) perAddress.delete(key);
      else perAddress.set(key, left);
    });
  });
  server.on('drop', () => options.onRefusal('connection_cap'));

  const check = setInterval(() => {
    for (const [socket, watched] of open) {
      const waiting = socket.writableLength;
      const sent = socket.bytesWritten - waiting;
      if (waiting === 0 || sent !== watched.sent) {
        watched.sent = sent;
        watched.stalledChecks = 0;
        continue;
      }
      watched.stalledChecks += 1;
      if (watched.stalledChecks >= stalledChecksAllowed) {
        socket.destroy();
        options.onRefusal('slow_reader');
      }
    }
  }, options.checkIntervalMs);
  check.unref();
  server.once('close', () => clearInterval(check));
}
