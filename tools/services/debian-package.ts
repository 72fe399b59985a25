/**
 * A program from one of Debian's packages, installed on first use when it is missing and we
 * may (root, apt-get): `redis-server` for the services, `chromium` for the browser tests.
 * Otherwise the error says how to install it.
 *
 * @module
 */
import { findOnPath, runLogged } from './run.ts';

/** What to ensure. */
export interface DebianProgram {
  /** The command that must be on PATH, e.g. `redis-server`. */
  readonly binary: string;
  /** The Debian package that brings it, e.g. `redis-server`. */
  readonly package: string;
  /** What a user does instead when we may not install it, and what to run after. */
  readonly howTo: string;
  /** Where apt-get's output goes. */
  readonly logFile: string;
}

/**
 * The path of `program.binary`, after installing its package with apt-get when it is missing
 * and this process runs as root; throws with `program.howTo` when it cannot.
 */
export async function ensureDebianProgram(
  program: DebianProgram,
  log: (line: string) => void,
): Promise<string> {
  const found = findOnPath(program.binary);
  if (found !== undefined) return found;
  const canInstall = process.getuid?.() === 0 && findOnPath('apt-get') !== undefined;
  if (!canInstall) throw new Error(`${program.binary} is not on PATH. ${program.howTo}`);
  log(`installing ${program.package} with apt-get (first run only)`);
  const options = { logFile: program.logFile, env: { DEBIAN_FRONTEND: 'noninteractive' } };
  // Another apt-get (a machine's own first-boot update) may hold the lock: wait for it.
  const waitForLock = ['-o', 'DPkg::Lock::Timeout=120'];
  await runLogged('apt-get', [...waitForLock, 'update'], options);
  await runLogged(
    'apt-get',
    [...waitForLock, 'install', '-y', '--no-install-recommends', program.package],
    options,
  );
  const installed = findOnPath(program.binary);
  if (installed === undefined) {
    throw new Error(
      `apt-get installed ${program.package}, but ${program.binary} is not on PATH ` +
        `(${process.env['PATH']})`,
    );
  }
  return installed;
}
