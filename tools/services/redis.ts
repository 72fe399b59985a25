/**
 * Redis 7 from the distribution's `redis-server` package, run as our own instance on loopback
 * (never the distribution's system service), with persistence off: test data is disposable.
 *
 * @module
 */
import { join } from 'node:path';
import { serviceDir } from './paths.ts';
import { probeRedis } from './probes.ts';
import { capture, findOnPath, runLogged } from './run.ts';
import type { Service } from './service.ts';

const HOST = '127.0.0.1';
const PORT = 6379;
const STATE = serviceDir('redis');

/** The URL clients use to reach the development Redis. */
export const REDIS_URL = `redis://${HOST}:${PORT}`;

/** Redis as a {@link Service}. */
export function redisService(): Service {
  return {
    name: 'redis',
    address: REDIS_URL,
    host: HOST,
    port: PORT,
    pidFile: join(STATE, 'redis.pid'),
    logFile: join(STATE, 'redis.log'),
    // Redis rewrites its process title to "redis-server 127.0.0.1:6379".
    marker: 'redis-server',
    startTimeoutMs: 15_000,
    stopGraceMs: 10_000,
    async prepare(log) {
      await installRedisServer(log);
      const { output } = await capture('redis-server', ['--version']);
      const major = Number(/v=(\d+)\./.exec(output)?.[1]);
      if (!(major >= 7)) log(`warning: the project targets Redis 7; found '${output.trim()}'`);
    },
    command: () =>
      Promise.resolve({
        command: 'redis-server',
        args: [
          '--bind',
          HOST,
          '--port',
          String(PORT),
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--dir',
          STATE,
          '--logfile',
          '',
        ],
      }),
    probe: () => probeRedis(REDIS_URL),
  };
}

/**
 * Installs Debian's `redis-server` when it is missing and we may (root, apt-get); otherwise
 * says how to install it.
 */
async function installRedisServer(log: (line: string) => void): Promise<void> {
  if (findOnPath('redis-server') !== undefined) return;
  const canInstall = process.getuid?.() === 0 && findOnPath('apt-get') !== undefined;
  if (!canInstall) {
    throw new Error(
      'redis-server (Redis 7) is not on PATH. Install it (Debian/Ubuntu: ' +
        'sudo apt-get install -y redis-server; macOS: brew install redis), then run ' +
        "'npm run services:up' again.",
    );
  }
  log('installing redis-server with apt-get (first run only)');
  const options = {
    logFile: join(STATE, 'install.log'),
    env: { DEBIAN_FRONTEND: 'noninteractive' },
  };
  await runLogged('apt-get', ['update'], options);
  await runLogged('apt-get', ['install', '-y', '--no-install-recommends', 'redis-server'], options);
  if (findOnPath('redis-server') === undefined) {
    throw new Error(
      `apt-get installed redis-server, but it is not on PATH (${process.env['PATH']})`,
    );
  }
}
