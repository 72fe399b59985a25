/**
 * The passwords of the secure services' users: random on first use, kept in
 * `.services/secrets/` (readable by this user only) and reused, so that a restart and a stored
 * SCRAM credential agree. Clients are given the file (`*_PASSWORD_FILE`), never the value.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceDir } from './paths.ts';

const SECRETS_DIR = serviceDir('secrets');

/** The file of the password `name`. */
export function passwordFile(name: string): string {
  return join(SECRETS_DIR, name);
}

/** Whether the password `name` exists yet. */
export function hasPassword(name: string): boolean {
  return existsSync(passwordFile(name));
}

/** The password `name`, made now if it does not exist. */
export function password(name: string): string {
  const file = passwordFile(name);
  if (!existsSync(file)) {
    mkdirSync(SECRETS_DIR, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}
