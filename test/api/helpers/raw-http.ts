/**
 * HTTP/1.1 spoken by hand on a real socket: what a hostile or broken client sends, and what the
 * server answers to it, byte for byte. The adapter tests use it where `fetch` would hide the
 * exchange (no Host header, `OPTIONS *`, a client that never reads, connections held open).
 *
 * @module
 */
import net from 'node:net';

/** Options of {@link exchange}. */
export interface ExchangeOptions {
  /** Half-close after writing (default true). */
  readonly end?: boolean;
  /** Destroy the socket after this many ms, whatever happened by then. */
  readonly cutAfterMs?: number;
  /** The source address (any of 127.0.0.0/8 reaches a server on 127.0.0.1). Default 127.0.0.1. */
  readonly localAddress?: string;
}

/** Writes `text` on a fresh connection and reads until the server closes it (or `cutAfterMs`). */
export function exchange(
  port: number,
  text: string,
  options: ExchangeOptions = {},
): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(
      { port, host: '127.0.0.1', localAddress: options.localAddress ?? '127.0.0.1' },
      () => {
        socket.write(text);
        if (options.end ?? true) socket.end();
      },
    );
    if (options.cutAfterMs !== undefined) {
      const cut = setTimeout(() => socket.destroy(), options.cutAfterMs);
      socket.on('close', () => clearTimeout(cut));
    }
    socket.on('data', (data) => (received += String(data)));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
}

/** The status, headers (names in lower case) and JSON body (or null) of a raw answer. */
export function parseResponse(
  raw: string,
): { status: number; headers: Record<string, string>; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const headEnd = raw.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, headEnd).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.slice(headEnd + 4);
  return { status, headers, body: body === '' ? null : JSON.parse(body) };
}

/**
 * The status of `GET path` on a fresh connection from `localAddress` (default 127.0.0.1), or 0
 * when the connection is refused, reset, or gets no answer within 1 s: "does it answer".
 */
export async function statusOf(port: number, path: string, localAddress?: string): Promise<number> {
  const raw = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, {
    cutAfterMs: 1_000,
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

/**
 * Opens `count` connections from `localAddress` that send nothing and never close their side
 * (a FIN from the server does not close them), 100 at a time so that the listen backlog takes
 * them; resolves once each is connected or already closed by the server.
 */
export async function holdIdle(
  port: number,
  count: number,
  localAddress: string,
): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let opened = 0; opened < count; opened += 100) {
    const batch = Math.min(100, count - opened);
    sockets.push(
      ...await Promise.all(
        Array.from({ length: batch }, () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect({
              port,
              host: '127.0.0.1',
              localAddress,
              allowHalfOpen: true,
            });
            socket.once('connect', () => resolve(socket));
            socket.once('close', () => resolve(socket));
            // A reset by the server is what some of these tests provoke.
            socket.on('error', () => {});
          })),
      ),
    );
  }
  return sockets;
}
