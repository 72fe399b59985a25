/**
 * Redis 7 from the distribution's `redis-server` package, run as our own instance on loopback
 * (never the distribution's system service), with persistence off: test data is disposable.
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serviceDir } from './paths.ts';
import { probeRedis } from './probes.ts';
import { capture } from './run.ts';
import { ensureDebianProgram } from './debian-package.ts';
import type { Service } from './service.ts';

const HOST = '127.0.0.1';
const PORT = 6379;

/** The URL clients use to reach the development Redis. */
export const REDIS_URL = `redis://${HOST}:${PORT}`;

/** Redis as a {@link Service}. */
export function redisService(): Service {
  return redisServerService({ name: 'redis', port: PORT, extraArgs: [] });
}

/** What tells one `redis-server` of ours from another. */
export interface RedisServerOptions {
  /** Service name, also its state folder under `.services/`. */
  readonly name: string;
  readonly port: number;
  /** Arguments after the common ones (e.g. cluster mode). */
  readonly extraArgs: readonly string[];
  /** One-time work before each fresh start, after redis-server is installed. */
  readonly beforeStart?: (dir: string) => void;
}

/**
 * One `redis-server` on loopback as a {@link Service}: persistence off, its state (pid, log,
 * cluster config) in its own folder.
 */
export function redisServerService(options: RedisServerOptions): Service {
  const state = serviceDir(options.name);
  const url = `redis://${HOST}:${options.port}`;
  return {
    name: options.name,
    address: url,
    host: HOST,
    port: options.port,
    pidFile: join(state, 'redis.pid'),
    logFile: join(state, 'redis.log'),
    // Redis rewrites its process title to "redis-server 127.0.0.1:<port>".
    marker: `redis-server ${HOST}:${options.port}`,
    startTimeoutMs: 15_000,
    stopGraceMs: 10_000,
    async prepare(log) {
      await ensureDebianProgram({
        binary: 'redis-server',
        package: 'redis-server',
        howTo: 'Install Redis 7 (Debian/Ubuntu: sudo apt-get install -y redis-server; macOS: ' +
          "brew install redis), then run 'npm run services:up' again.",
        logFile: join(state, 'install.log'),
      }, log);
      const { output } = await capture('redis-server', ['--version']);
      const major = Number(/v=(\d+)\./.exec(output)?.[1]);
      if (!(major >= 7)) log(`warning: the project targets Redis 7; found '${output.trim()}'`);
      mkdirSync(state, { recursive: true });
      options.beforeStart?.(state);
    },
    command: () =>
      Promise.resolve({
        command: 'redis-server',
        args: [
          '--bind',
          HOST,
          '--port',
          String(options.port),
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--dir',
          state,
          '--logfile',
          '',
          ...options.extraArgs,
        ],
      }),
    probe: () => probeRedis(url),
  };
}
