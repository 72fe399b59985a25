/**
 * What one round trip to Redis costs this process's CPU, beneath any client: `PING` written on a
 * bare TCP socket and its reply awaited, over and over; and the same through node-redis. A read
 * that needs one round trip cannot cost less than the first, whatever computes its answer.
 *
 * @example
 * ```ts
 * const { bareUs, clientUs } = await roundTripCpuUs('redis://127.0.0.1:6379', 5_000);
 * ```
 *
 * @module
 */
import { connect } from 'node:net';
import { createClient } from 'redis';

/** `PING` in RESP. */
const PING = '*1\r\n$4\r\nPING\r\n';

/** CPU of this process per round trip (µs), median of three runs of `count`. */
async function perRoundTrip(count: number, roundTrip: () => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) await roundTrip();
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / count);
  }
  return runs.sort((a, b) => a - b)[1] ?? Number.NaN;
}

/**
 * The CPU per `PING` round trip to the Redis of `url` (plain TCP, no password): on a bare socket
 * (`bareUs`, each reply taken as the first bytes that arrive: `+PONG` fits one read) and through
 * node-redis (`clientUs`).
 */
export async function roundTripCpuUs(
  url: string,
  count: number,
): Promise<{ readonly bareUs: number; readonly clientUs: number }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let replied: (() => void) | null = null;
  socket.on('data', () => {
    const done = replied;
    replied = null;
    done?.();
  });
  const bareUs = await perRoundTrip(count, () =>
    new Promise<void>((resolve) => {
      replied = resolve;
      socket.write(PING);
    }));
  socket.destroy();
  const client = await createClient({ url }).connect();
  const clientUs = await perRoundTrip(count, () => client.ping());
  await client.close();
  return { bareUs, clientUs };
}
