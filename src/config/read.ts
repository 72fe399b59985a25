/**
 * Reading one variable of the environment: the error every refused value raises, and the
 * readers the settings share (text, on/off flags, integers, files, secrets given inline or as a file).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Secret } from './secret.ts';

/** The environment the configuration is read from. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration variable has a value that is not allowed. */
export class ConfigError extends Error {
  constructor(variable: string, value: string, allowed: string, options?: ErrorOptions) {
    super(`${variable}=${JSON.stringify(value)} is not allowed: ${allowed}`, options);
    this.name = 'ConfigError';
  }
}

/** The trimmed value of `name`, or null when it is unset or blank. */
export function text(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value.trim() === '' ? null : value.trim();
}

/** An on/off variable; `fallback` when unset. */
export function flag(env: Env, name: string, fallback = false): boolean {
  const value = text(env, name);
  if (value === null) return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(
    name,
    value,
    `1, true, yes, on or 0, false, no, off (default ${fallback ? 'on' : 'off'})`,
  );
}

/** A whole number from `min` to `max`; `fallback` when unset. */
export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = text(env, name);
  if (value === null) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(name, value, `an integer from ${min} to ${max} (default ${fallback})`);
  }
  return parsed;
}

/** The content of the file `name` names, or null when unset; `what` says what it must hold. */
export function fileContent(env: Env, name: string, what: string): string | null {
  const path = text(env, name);
  if (path === null) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new ConfigError(
      name,
      path,
      `the path of a readable file holding ${what} (${reason})`,
      { cause: error },
    );
  }
}

/**
 * A secret given as `name` or as the file `name_FILE` names (as container secrets are mounted;
 * one trailing line break is dropped), or null when neither is set. Never both. Its value never
 * appears in an error: a file's is named by its path.
 *
 * @example
 * ```ts
 * // REDIS_PASSWORD_FILE=/run/secrets/redis_password
 * const password = secret(process.env, 'REDIS_PASSWORD', 'the Redis password');
 * password?.reveal();
 * ```
 */
export function secret(env: Env, name: string, what: string): Secret | null {
  const inline = env[name];
  const fileVariable = `${name}_FILE`;
  const content = fileContent(env, fileVariable, what);
  if (inline !== undefined && inline !== '' && content !== null) {
    throw new ConfigError(fileVariable, text(env, fileVariable) ?? '', `unset when ${name} is set`);
  }
  const value = content === null ? inline : content.replace(/\r?\n$/, '');
  if (value === undefined || value === '') {
    if (content !== null) {
      throw new ConfigError(fileVariable, text(env, fileVariable) ?? '', `a file holding ${what}`);
    }
    return null;
  }
  return new Secret(value);
}
