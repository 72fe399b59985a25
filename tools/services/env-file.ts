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

/**
 * The variables of the secure services (`services:up -- --secure`), apart from the plaintext
 * ones: sourcing `.services/env` never turns a client's TLS on. Passwords are files.
 */
export interface SecureServiceEnv {
  /** The local CA every secure service's certificate chains to. */
  readonly SECURE_TLS_CA_FILE: string;
  /** A CA that signed none of them (for the tests of an untrusted server). */
  readonly SECURE_TLS_UNTRUSTED_CA_FILE: string;
  /** Its key: with it, a client certificate no secure service trusts. */
  readonly SECURE_TLS_UNTRUSTED_KEY_FILE: string;
  /** A client certificate of the local CA and its key (mutual TLS). */
  readonly SECURE_TLS_CLIENT_CERT_FILE: string;
  readonly SECURE_TLS_CLIENT_KEY_FILE: string;
  /** The broker that takes only SASL_SSL, and its client user. */
  readonly SECURE_KAFKA_BROKERS: string;
  readonly SECURE_KAFKA_SASL_MECHANISM: string;
  readonly SECURE_KAFKA_SASL_USERNAME: string;
  readonly SECURE_KAFKA_SASL_PASSWORD_FILE: string;
  /** The TLS-only Redis (`rediss://`) and Redis Cluster, and their ACL user. */
  readonly SECURE_REDIS_URL: string;
  readonly SECURE_REDIS_CLUSTER_NODES: string;
  readonly SECURE_REDIS_USERNAME: string;
  readonly SECURE_REDIS_PASSWORD_FILE: string;
}

/** `KEY=VALUE` lines, one per variable, in a stable order. */
export function formatEnv(env: ServiceEnv | (ServiceEnv & SecureServiceEnv)): string {
  return Object.entries(env).map(([key, value]) => `${key}=${value}\n`).join('');
}

/** Writes `.services/env` (or `file`). */
export function writeEnvFile(
  env: ServiceEnv | (ServiceEnv & SecureServiceEnv),
  file: string = ENV_FILE,
): void {
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
