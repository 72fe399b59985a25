/**
 * Detached processes owned by `npm run services:*`: start one with its output in a log file and
 * its pid in a pid file, recognise it later (only a live process whose command line still
 * carries the expected marker is ours), and stop it.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** What to run, and where its pid and output go. */
export interface DetachedCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Added to the environment of this process. */
  readonly env?: Readonly<Record<string, string>>;
  /** stdout and stderr; the previous run's file is kept as `<logFile>.1`. */
  readonly logFile: string;
  readonly pidFile: string;
}

/** A process started by {@link startDetached}. */
export interface StartedProcess {
  readonly pid: number;
  /** Resolves with the exit code (or the signal name) if the process ends. */
  readonly exited: Promise<number | string>;
}

/**
 * Starts `command` in its own session, detached from this process, so that it outlives the CLI.
 *
 * @example
 * ```ts
 * const { pid } = startDetached({
 *   command: 'redis-server', args: ['--port', '6379'], cwd: REPO_ROOT,
 *   logFile: '.services/redis/redis.log', pidFile: '.services/redis/redis.pid',
 * });
 * ```
 */
export function startDetached(spec: DetachedCommand): StartedProcess {
  mkdirSync(dirname(spec.logFile), { recursive: true });
  mkdirSync(dirname(spec.pidFile), { recursive: true });
  if (existsSync(spec.logFile)) renameSync(spec.logFile, `${spec.logFile}.1`);
  const log = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      detached: true,
      stdio: ['ignore', log, log],
    });
    const exited = new Promise<number | string>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    });
    // Spawn failures (ENOENT) arrive as an 'error' event; keep them from being unhandled when
    // nobody awaits `exited`.
    exited.catch(() => {});
    const pid = child.pid;
    if (pid === undefined) {
      throw new Error(`could not start '${spec.command}': no pid was assigned (is it installed?)`);
    }
    child.unref();
    writeFileSync(spec.pidFile, `${pid}\n`);
    return { pid, exited };
  } finally {
    closeSync(log);
  }
}

/** The pid recorded in `pidFile`, or undefined when there is none (or it is unreadable). */
export function readPid(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Removes a pid file; absent is fine. */
export function removePidFile(pidFile: string): void {
  rmSync(pidFile, { force: true });
}

/**
 * True when `pid` is alive (not a zombie) and its command line contains `marker`: a pid file
 * left behind by a crash may name a pid that the system has since given to someone else.
 */
export function isOwnProcess(pid: number, marker: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const proc = `/proc/${pid}`;
  if (!existsSync(proc)) return true; // no procfs (macOS): the liveness check is all we have
  try {
    const stat = readFileSync(`${proc}/stat`, 'utf8');
    // Field 3, after the parenthesised command name (which may itself contain spaces).
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    const cmdline = readFileSync(`${proc}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return cmdline.includes(marker);
  } catch {
    return false; // exited between the checks
  }
}

/** How {@link stopProcess} ended. */
export type StopOutcome = 'terminated' | 'killed' | 'not-running';

/**
 * Sends SIGTERM, waits up to `graceMs` for the process to end, then sends SIGKILL.
 *
 * @example
 * ```ts
 * const outcome = await stopProcess(pid, 'kafka.Kafka', 30_000); // 'terminated'
 * ```
 */
export async function stopProcess(
  pid: number,
  marker: string,
  graceMs: number,
): Promise<StopOutcome> {
  if (!isOwnProcess(pid, marker)) return 'not-running';
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isOwnProcess(pid, marker)) return 'terminated';
    await sleep(100);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return 'terminated'; // ended just after the last check
  }
  while (isOwnProcess(pid, marker)) await sleep(50);
  return 'killed';
}

/** The last `lines` lines of a log file (empty when it does not exist), for error messages. */
export function tail(file: string, lines = 20): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8').trimEnd();
  return text.split('\n').slice(-lines).join('\n');
}
