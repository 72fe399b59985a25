/**
 * Redis 7 from the distribution's `redis-server` package, run as our own instance on loopback
 * (never the distribution's system service), with persistence off: test data is disposable.
 *
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCertificates, TLS_FILES } from './certificates.ts';
import { serviceDir } from './paths.ts';
import { probeRedis, type RedisLogin } from './probes.ts';
import { password, passwordFile } from './secrets.ts';
import { capture } from './run.ts';
import { ensureDebianProgram } from './debian-package.ts';
import type { Service } from './service.ts';

const HOST = '127.0.0.1';
const PORT = 16379;

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
  /** TLS only on `port` (no plaintext port) and only this ACL user (the default user off). */
  readonly secure?: SecureRedis;
}

/** The one user of a secure Redis, whose password is kept in `.services/secrets/`. */
export interface SecureRedis {
  readonly username: string;
  /** Name of its password under `.services/secrets/`. */
  readonly passwordName: string;
}

/** The ACL user of the secure Redis and Redis Cluster. */
export const SECURE_REDIS_USER: SecureRedis = { username: 'rollups', passwordName: 'redis' };

/** How a probe logs in to a secure Redis of ours. */
export function secureRedisLogin(secure: SecureRedis): RedisLogin {
  return {
    username: secure.username,
    password: password(secure.passwordName),
    ca: readFileSync(TLS_FILES.ca, 'utf8'),
  };
}

/** The file of the password of `secure`'s user, as clients are given it. */
export function secureRedisPasswordFile(secure: SecureRedis): string {
  return passwordFile(secure.passwordName);
}

/** Arguments of a TLS-only redis-server on `port` (its users: the configuration file). */
function secureArgs(port: number): string[] {
  return [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    TLS_FILES.serverCert,
    '--tls-key-file',
    TLS_FILES.serverKey,
    '--tls-ca-cert-file',
    TLS_FILES.ca,
    // A client certificate is checked when given, not required: managed Redis services differ.
    '--tls-auth-clients',
    'optional',
    // A replica (a test's failover) copies its master as the same user, over TLS.
    '--tls-replication',
    'yes',
  ];
}

/**
 * One `redis-server` on loopback as a {@link Service}: persistence off, its state (pid, log,
 * cluster config) in its own folder.
 */
export function redisServerService(options: RedisServerOptions): Service {
  const state = serviceDir(options.name);
  const secure = options.secure;
  const url = `${secure === undefined ? 'redis' : 'rediss'}://${HOST}:${options.port}`;
  // The users (and the password) go in files only we can read, never on the command line.
  const aclFile = join(state, 'users.acl');
  const secureConf = join(state, 'secure.conf');
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
      if (secure !== undefined) {
        await ensureCertificates(log);
        writeFileSync(
          aclFile,
          `user default off\nuser ${secure.username} on >${password(secure.passwordName)} ` +
            '~* &* +@all\n',
          { mode: 0o600 },
        );
        writeFileSync(
          secureConf,
          `aclfile ${aclFile}\nmasteruser ${secure.username}\n` +
            `masterauth ${password(secure.passwordName)}\n`,
          { mode: 0o600 },
        );
      }
      options.beforeStart?.(state);
    },
    command: () =>
      Promise.resolve({
        command: 'redis-server',
        args: [
          // A configuration file must come first.
          ...(secure === undefined ? [] : [secureConf]),
          '--bind',
          HOST,
          ...(secure === undefined ? ['--port', String(options.port)] : secureArgs(options.port)),
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
    probe: () => probeRedis(url, secure === undefined ? undefined : secureRedisLogin(secure)),
  };
}
