import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { up } from '../../../tools/services/lifecycle.ts';
import type { Service } from '../../../tools/services/service.ts';

/** A TCP server of somebody else's on a free loopback port: a developer's own Redis, say. */
async function foreignServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

describe('up on a port held by a process it did not start', () => {
  let dir = '';
  let server: Server | undefined;

  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A service on `port` whose probe answers `answers`, and whose start is recorded. */
  function serviceOn(port: number, answers: boolean, started: string[]): Service {
    dir = mkdtempSync(join(tmpdir(), 'lifecycle-'));
    return {
      name: 'redis',
      address: `redis://127.0.0.1:${port}`,
      host: '127.0.0.1',
      port,
      pidFile: join(dir, 'redis.pid'),
      logFile: join(dir, 'redis.log'),
      marker: `redis-server 127.0.0.1:${port}`,
      startTimeoutMs: 1_000,
      stopGraceMs: 1_000,
      prepare: () => Promise.resolve(),
      command: () => {
        started.push('command');
        return Promise.resolve({ command: 'true', args: [] });
      },
      probe: () => answers ? Promise.resolve() : Promise.reject(new Error('not Redis')),
    };
  }

  it('refuses one that answers as the service: it is never reused (nor emptied)', async () => {
    const foreign = await foreignServer();
    server = foreign.server;
    const started: string[] = [];
    await expect(up(serviceOn(foreign.port, true, started), () => {})).rejects.toThrow(
      `127.0.0.1:${foreign.port} is taken by a process that 'npm run services:up' did not ` +
        'start (it answers as redis)',
    );
    expect(started).toEqual([]);
  });

  it('refuses one that does not answer as the service, saying so', async () => {
    const foreign = await foreignServer();
    server = foreign.server;
    await expect(up(serviceOn(foreign.port, false, []), () => {})).rejects.toThrow(
      '(it does not answer as redis)',
    );
  });
});
