/**
 * tools/services/free-port.ts: a port handed out is reserved, so that two processes asking at
 * the same time (tests side by side) are never handed the same one; a reservation is taken again
 * once it is old; a port comes from below the system's ephemeral range, where no server on port 0
 * and no outgoing connection is given one; a cluster node's port comes with its bus port free and
 * reserved too, and a failed pair gives its first reservation back.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort, RESERVED_MS, reservePort } from '../../../tools/services/free-port.ts';

const root = mkdtempSync(join(tmpdir(), 'free-port-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let made = 0;
/** A directory of reservations of its own. */
const fresh = () => mkdtempSync(join(root, `${made++}-`));

/** Resolves once `port` has been listened on and closed again. */
async function listenOn(port: number): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
}

test('a port is reserved once until its reservation is old', () => {
  const directory = fresh();
  expect(reservePort(40_001, directory)).toBe(true);
  expect(reservePort(40_001, directory), 'reserved twice').toBe(false);
  expect(reservePort(40_002, directory), 'another port').toBe(true);
  const old = new Date(Date.now() - RESERVED_MS - 1_000);
  utimesSync(join(directory, '40001'), old, old);
  expect(reservePort(40_001, directory), 'an old reservation').toBe(true);
  expect(reservePort(40_001, directory), 'taken again, so young').toBe(false);
  expect(readdirSync(directory).sort(), 'nothing left aside').toEqual(['40001', '40002']);
});

test('ports handed out are distinct, reserved, listenable and below the ephemeral range', async () => {
  const directory = fresh();
  const [firstEphemeral = ''] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    .trim().split(/\s+/);
  const ports: number[] = [];
  for (let i = 0; i < 20; i++) ports.push(await freePort({ alsoAbove: 10_000, directory }));
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) {
    expect(port + 10_000).toBeLessThan(Number(firstEphemeral));
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(existsSync(join(directory, String(port + 10_000))), 'its bus port reserved').toBe(true);
    expect(reservePort(port, directory), 'handed out, so reserved').toBe(false);
    await listenOn(port);
  }
});

test('a port reserved by another is never handed out; a failed pair gives its port back', async () => {
  const port = await freePort({ directory: fresh() });
  const range = [port, port] as const;
  expect(await freePort({ range, directory: fresh() }), 'free and unreserved').toBe(port);
  const reserved = fresh();
  expect(reservePort(port, reserved)).toBe(true);
  await expect(freePort({ range, directory: reserved })).rejects.toThrow(/no free TCP port/);
  // Its bus port reserved by another: the pair fails, and the port is not kept reserved.
  const pair = fresh();
  expect(reservePort(port + 10_000, pair)).toBe(true);
  await expect(freePort({ range, alsoAbove: 10_000, directory: pair })).rejects.toThrow(
    /no free TCP port/,
  );
  expect(existsSync(join(pair, String(port))), 'the port given back').toBe(false);
});

test('a port something listens on is not handed out, nor a bad offset taken', async () => {
  const port = await freePort({ directory: fresh() });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  try {
    await expect(freePort({ range: [port, port], directory: fresh() })).rejects.toThrow(
      /no free TCP port/,
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  await expect(freePort({ alsoAbove: 0 })).rejects.toThrow(/alsoAbove must be a positive/);
  await expect(freePort({ alsoAbove: -1 })).rejects.toThrow(/alsoAbove must be a positive/);
});
