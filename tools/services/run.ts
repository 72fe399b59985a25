/**
 * Running the one-shot tools a service needs before it starts (apt-get, mvn, java), with
 * their output kept in a log file and quoted when they fail.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { tail } from './process.ts';

/** Options of {@link runLogged}. */
export interface RunOptions {
  /** stdout and stderr of the command (appended). */
  readonly logFile: string;
  readonly cwd?: string;
  /** Added to the environment. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs `command` to completion with its output appended to `logFile`; rejects, quoting the end
 * of the log, when it cannot start or exits non-zero.
 *
 * @example
 * ```ts
 * await runLogged('apt-get', ['update'], { logFile: '.services/redis/install.log' });
 * ```
 */
export async function runLogged(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<void> {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, 'a');
  try {
    const code = await new Promise<number | string>((resolve, reject) => {
      const child = spawn(command, args, {
        cwd: options.cwd ?? REPO_ROOT,
        env: { ...process.env, ...options.env },
        stdio: ['ignore', log, log],
      });
      child.once('error', reject);
      child.once('exit', (exitCode, signal) => resolve(exitCode ?? signal ?? 'unknown'));
    });
    if (code !== 0) {
      const lastLines = tail(options.logFile, 25).replace(/^/gm, '    | ');
      throw new Error(
        `'${[command, ...args].join(' ')}' failed (exit ${code}); see ` +
          `${relative(REPO_ROOT, options.logFile)}, which ends with:\n${lastLines}`,
      );
    }
  } finally {
    closeSync(log);
  }
}

/** Runs `command` and returns its combined output; rejects when it cannot start. */
export function capture(
  command: string,
  args: readonly string[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The absolute path of an executable found on PATH, or undefined. */
export function findOnPath(
  name: string,
  path: string = process.env['PATH'] ?? '',
): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
