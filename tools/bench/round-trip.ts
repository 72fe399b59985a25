/**
 * What one round trip to Redis costs this process's CPU, beneath any client: `PING` written on a
 * bare TCP socket and its `+PONG` awaited, over and over; and the same through node-redis. A read
 * that needs one round trip cannot cost less than the first, whatever computes its answer.
 *
 * @example
 * ```ts
 * const { bareUs, clientUs } = await roundTripCpuUs('redis://127.0.0.1:6379', 5_000);
 * ```
 *
 * @module
 */
import { connect, type Socket } from 'node:net';
import { createClient } from 'redis';

/** `PING` in RESP, and the reply awaited. */
const PING = '*1\r\n$4\r\nPING\r\n';
const PONG = '+PONG\r\n';

/** CPU of this process per call of `call` (µs), median of three runs of `count` calls in turn. */
export async function cpuUsPerCall(count: number, call: () => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) await call();
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / count);
  }
  return runs.sort((a, b) => a - b)[1] ?? Number.NaN;
}

/**
 * `PING`s on `socket`, one at a time: each resolves once the whole `+PONG` has arrived (in one read
 * or several), and rejects on any other reply, or when the socket fails or closes.
 */
function bareRoundTrips(socket: Socket): () => Promise<void> {
  let waiting: { resolve: () => void; reject: (error: Error) => void } | null = null;
  let received = '';
  const fail = (error: Error) => {
    const pending = waiting;
    waiting = null;
    pending?.reject(error);
  };
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    if (received.length < PONG.length) return;
    const reply = received;
    received = '';
    const pending = waiting;
    waiting = null;
    if (reply === PONG) pending?.resolve();
    else pending?.reject(new Error(`PING answered ${JSON.stringify(reply)}, not +PONG`));
  });
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the socket closed during a PING')));
  return () =>
    new Promise<void>((resolve, reject) => {
      waiting = { resolve, reject };
      socket.write(PING);
    });
}

/**
 * The CPU per `PING` round trip to the Redis of `url` (plain TCP, no password): on a bare socket
 * (`bareUs`) and through node-redis (`clientUs`).
 */
export async function roundTripCpuUs(
  url: string,
  count: number,
): Promise<{ readonly bareUs: number; readonly clientUs: number }> {
  const { hostname, port } = new URL(url);
  // An IPv6 address's brackets belong to the URL, not to the address.
  const socket = connect(Number(port || 6379), hostname.replace(/^\[(.*)\]$/, '$1'));
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  try {
    const bareUs = await cpuUsPerCall(count, bareRoundTrips(socket));
    const client = await createClient({ url }).connect();
    try {
      return { bareUs, clientUs: await cpuUsPerCall(count, () => client.ping()) };
    } finally {
      await client.close();
    }
  } finally {
    socket.destroy();
  }
}
