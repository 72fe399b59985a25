/**
 * `.services/env`: where the running development services are, as `KEY=VALUE` lines that a
 * shell can source (`set -a; . .services/env; set +a`) and the test harness reads.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ENV_FILE } from './paths.ts';

/** The variables clients read to find the services. */
export interface ServiceEnv {
  readonly KAFKA_BROKERS: string;
  readonly REDIS_URL: string;
  /** `host:port` of the Redis Cluster's nodes, comma-separated. */
  readonly REDIS_CLUSTER_NODES: string;
  readonly UPSTASH_REDIS_REST_URL: string;
  readonly UPSTASH_REDIS_REST_TOKEN: string;
}

/** `KEY=VALUE` lines, one per variable, in a stable order. */
export function formatEnv(env: ServiceEnv): string {
  return Object.entries(env).map(([key, value]) => `${key}=${value}\n`).join('');
}

/** Writes `.services/env` (or `file`). */
export function writeEnvFile(env: ServiceEnv, file: string = ENV_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, formatEnv(env));
}

/** Removes `.services/env` (or `file`): the services it names are gone. */
export function removeEnvFile(file: string = ENV_FILE): void {
  rmSync(file, { force: true });
}

/**
 * The variables of `.services/env` (or `file`); empty when it does not exist. Blank lines and
 * `#` comments are ignored; values are taken verbatim after the first `=`.
 *
 * @example
 * ```ts
 * const env = readEnvFile(); // { KAFKA_BROKERS: '127.0.0.1:9092', … }
 * ```
 */
export function readEnvFile(file: string = ENV_FILE): Record<string, string> {
  if (!existsSync(file)) return {};
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const trimmed = line.trim();
    const separator = trimmed.indexOf('=');
    if (trimmed === '' || trimmed.startsWith('#') || separator <= 0) continue;
    env[trimmed.slice(0, separator)] = trimmed.slice(separator + 1);
  }
  return env;
}
