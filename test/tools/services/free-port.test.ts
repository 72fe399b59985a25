/**
 * tools/services/free-port.ts: a port handed out is reserved, so that two processes asking at
 * the same time (tests side by side) are never handed the same one; a reservation is taken again
 * once it is old; a cluster node's port comes with its bus port free and reserved too.
 */
import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import {
  freePort,
  RESERVATIONS,
  RESERVED_MS,
  reservePort,
} from '../../../tools/services/free-port.ts';

const directory = mkdtempSync(join(tmpdir(), 'free-port-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

test('a port is reserved once until its reservation is old', () => {
  expect(reservePort(40_001, directory)).toBe(true);
  expect(reservePort(40_001, directory), 'reserved twice').toBe(false);
  expect(reservePort(40_002, directory), 'another port').toBe(true);
  const old = new Date(Date.now() - RESERVED_MS - 1_000);
  utimesSync(join(directory, '40001'), old, old);
  expect(reservePort(40_001, directory), 'an old reservation').toBe(true);
  expect(reservePort(40_001, directory), 'taken again, so young').toBe(false);
});

test('ports handed out are distinct, reserved and free, their bus ports too', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 20; i++) ports.push(await freePort({ alsoAbove: 10_000 }));
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) {
    expect(existsSync(join(RESERVATIONS, String(port)))).toBe(true);
    expect(existsSync(join(RESERVATIONS, String(port + 10_000)))).toBe(true);
    expect(reservePort(port), 'handed out, so reserved').toBe(false);
  }
  // Each can be listened on, as the caller will.
  const [port = 0] = ports;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await new Promise((resolve) => server.close(resolve));
});
