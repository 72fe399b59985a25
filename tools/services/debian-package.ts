/**
 * A program from one of Debian's packages, installed on first use when it is missing and we
 * are asked to and may (`TEST_INSTALL=1`, root, apt-get): `redis-server` for the services,
 * `chromium` for the browser tests. Otherwise the error says how to install it: a test run or
 * `npm run services:up` never installs anything unless asked.
 *
 * apt-get holds a lock on its package lists while it updates them, and a second `apt-get update`
 * fails at once rather than wait (`DPkg::Lock::Timeout` covers only dpkg's own lock). So one
 * process runs one apt-get at a time, and two services that need the same package (Redis and the
 * Redis Cluster's nodes both need `redis-server`) share one install.
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

/** What {@link ensureDebianProgram} asks of the machine; tests give their own. */
export interface PackageSystem {
  readonly findOnPath: (name: string) => string | undefined;
  /** Whether apt-get may be run: asked (`TEST_INSTALL=1`), root, and apt-get on PATH. */
  readonly canInstall: () => boolean;
  /** Runs apt-get with `args`, its output to `logFile`; rejects when it fails. */
  readonly aptGet: (args: readonly string[], logFile: string) => Promise<void>;
}

const machine: PackageSystem = {
  findOnPath,
  canInstall: () =>
    installAsked(process.env) && process.getuid?.() === 0 && findOnPath('apt-get') !== undefined,
  aptGet: (args, logFile) =>
    runLogged('apt-get', args, { logFile, env: { DEBIAN_FRONTEND: 'noninteractive' } }),
};

/** Whether the environment asks for missing packages to be installed: `TEST_INSTALL=1`. */
export function installAsked(environment: Readonly<Record<string, string | undefined>>): boolean {
  return ['1', 'true', 'yes'].includes((environment['TEST_INSTALL'] ?? '').toLowerCase());
}

/** Installs under way or done, by package, per package system. */
const installs = new WeakMap<PackageSystem, Map<string, Promise<void>>>();
/** The end of the last apt-get run queued, per package system: one runs at a time. */
const aptQueues = new WeakMap<PackageSystem, Promise<unknown>>();

/**
 * The path of `program.binary`, after installing its package with apt-get when it is missing
 * and this process runs as root; throws with `program.howTo` when it cannot. Concurrent calls
 * for one package share one install.
 *
 * @example
 * ```ts
 * const path = await ensureDebianProgram({
 *   binary: 'redis-server',
 *   package: 'redis-server',
 *   howTo: 'sudo apt-get install -y redis-server',
 *   logFile: '.services/redis/install.log',
 * }, console.log);
 * ```
 */
export async function ensureDebianProgram(
  program: DebianProgram,
  log: (line: string) => void,
  system: PackageSystem = machine,
): Promise<string> {
  const found = system.findOnPath(program.binary);
  if (found !== undefined) return found;
  if (!system.canInstall()) {
    throw new Error(
      `${program.binary} is not on PATH. ${program.howTo} (or set TEST_INSTALL=1 to let this ` +
        'process install it with apt-get, as root)',
    );
  }
  let byPackage = installs.get(system);
  if (byPackage === undefined) {
    byPackage = new Map();
    installs.set(system, byPackage);
  }
  let install = byPackage.get(program.package);
  if (install === undefined) {
    log(`installing ${program.package} with apt-get (first run only)`);
    install = installPackage(program, system);
    byPackage.set(program.package, install);
    // A failed install may be tried again by a later call.
    install.catch(() => byPackage.delete(program.package));
  }
  await install;
  const installed = system.findOnPath(program.binary);
  if (installed === undefined) {
    throw new Error(
      `apt-get installed ${program.package}, but ${program.binary} is not on PATH ` +
        `(${process.env['PATH']})`,
    );
  }
  return installed;
}

function installPackage(program: DebianProgram, system: PackageSystem): Promise<void> {
  // Another apt-get (a machine's own first-boot update) may hold dpkg's lock: wait for it.
  const waitForLock = ['-o', 'DPkg::Lock::Timeout=120'];
  const run = async () => {
    await system.aptGet([...waitForLock, 'update'], program.logFile);
    await system.aptGet(
      [...waitForLock, 'install', '-y', '--no-install-recommends', program.package],
      program.logFile,
    );
  };
  const previous = aptQueues.get(system) ?? Promise.resolve();
  const done = previous.then(run, run);
  aptQueues.set(system, done.catch(() => undefined));
  return done;
}
