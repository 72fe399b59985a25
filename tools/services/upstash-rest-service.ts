/**
 * The Upstash-REST endpoint (tools/services/upstash-rest.ts) as a detached service in front of
 * the development Redis, run by the project's own Node.
 *
 * @module
 */
import { join } from 'node:path';
import { REPO_ROOT, serviceDir } from './paths.ts';
import { probeUpstashRest } from './probes.ts';
import { REDIS_URL } from './redis.ts';
import type { Service } from './service.ts';
import { DEFAULT_TOKEN } from './upstash-rest.ts';

const HOST = '127.0.0.1';
const PORT = 18079;
const STATE = serviceDir('upstash-rest');

/** Base URL of the development REST endpoint. */
export const UPSTASH_REST_URL = `http://${HOST}:${PORT}`;

/** Its token: `UPSTASH_REST_TOKEN` when set, else the fixed development token. */
export function upstashRestToken(): string {
  return process.env['UPSTASH_REST_TOKEN'] ?? DEFAULT_TOKEN;
}

/** The REST endpoint as a {@link Service}. */
export function upstashRestService(): Service {
  const token = upstashRestToken();
  return {
    name: 'upstash-rest',
    address: UPSTASH_REST_URL,
    host: HOST,
    port: PORT,
    pidFile: join(STATE, 'upstash-rest.pid'),
    logFile: join(STATE, 'upstash-rest.log'),
    marker: 'upstash-rest.ts',
    startTimeoutMs: 15_000,
    stopGraceMs: 5_000,
    prepare: () => Promise.resolve(),
    command: () =>
      Promise.resolve({
        command: process.execPath,
        args: [join(REPO_ROOT, 'tools/services/upstash-rest.ts')],
        env: {
          UPSTASH_REST_REDIS_URL: REDIS_URL,
          UPSTASH_REST_TOKEN: token,
          UPSTASH_REST_HOST: HOST,
          UPSTASH_REST_PORT: String(PORT),
        },
      }),
    probe: () => probeUpstashRest(UPSTASH_REST_URL, token),
  };
}
