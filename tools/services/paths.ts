/**
 * Where the development services keep their files. Runtime state (pids, logs, data) lives in
 * `.services/`, downloads in `.cache/`: both git-ignored, both safe to delete while the
 * services are down.
 *
 * @module
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root, with no trailing separator. */
export const REPO_ROOT: string = fileURLToPath(new URL('../..', import.meta.url)).replace(
  /\/$/,
  '',
);

/** Runtime state of the services: one folder per service, and the `env` file. */
export const STATE_DIR: string = join(REPO_ROOT, '.services');

/** Downloads that survive `services:down` (Maven repository, resolved classpaths). */
export const CACHE_DIR: string = join(REPO_ROOT, '.cache');

/** `KEY=VALUE` lines telling clients where the running services are. */
export const ENV_FILE: string = join(STATE_DIR, 'env');

/** The state folder of one service, e.g. `.services/kafka`. */
export function serviceDir(name: string): string {
  return join(STATE_DIR, name);
}
