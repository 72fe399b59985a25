/**
 * One process of the service (`service/main.ts --role consumers|api`), as a long run starts,
 * stops and watches it: its log lines at level error or above are handed on, and an exit nobody
 * asked for is reported.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { API_HEAP_FLAGS, CONSUMER_HEAP_FLAGS } from '../../service/heap-flags.ts';

/** Each role's heap flags. */
const ROLE_HEAP_FLAGS: Readonly<Record<RoleProcessOptions['role'], readonly string[]>> = {
  consumers: CONSUMER_HEAP_FLAGS,
  api: API_HEAP_FLAGS,
};

/** pino's level number of `error`: lines at or above it are errors. */
const ERROR_LEVEL = 50;

/** Options of {@link RoleProcess.start}. */
export interface RoleProcessOptions {
  readonly role: 'consumers' | 'api';
  /** Added to this process's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** A log line at level error or above (its `msg`, or the line when it is not JSON). */
  readonly onError: (message: string) => void;
  /** The process ended without {@link RoleProcess.stop} (code or signal). */
  readonly onUnexpectedExit: (how: string) => void;
}

/** A running role process. */
export class RoleProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #stopping = false;

  private constructor(child: ChildProcess, options: RoleProcessOptions) {
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        if (!this.#stopping) options.onUnexpectedExit(signal ?? `code ${code}`);
        resolve();
      });
    });
    if (child.stdout !== null) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const error = errorOf(line);
        if (error !== null) options.onError(error);
      });
    }
  }

  /**
   * Starts `service/main.ts --role <role>` on Node with `env` added and the role's heap flags
   * (as `npm run consumers` and `npm run api`), its log on a pipe; its standard error goes to ours.
   */
  static start(options: RoleProcessOptions): RoleProcess {
    const child = spawn(
      process.execPath,
      [
        '--disable-warning=TimeoutNegativeWarning',
        // As `npm run consumers` and `npm run api` start them.
        ...ROLE_HEAP_FLAGS[options.role],
        'service/main.ts',
        '--role',
        options.role,
      ],
      { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    return new RoleProcess(child, options);
  }

  /** Its process id (undefined when it could not be started). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends `signal` and resolves once the process has exited. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.#stopping = true;
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill(signal);
    await this.#exited;
  }
}

/** The message of a pino line at level error or above; null for any other line. */
function errorOf(line: string): string | null {
  try {
    const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
    if (typeof entry.level !== 'number' || entry.level < ERROR_LEVEL) return null;
    return typeof entry.msg === 'string' ? entry.msg : line;
  } catch {
    return null;
  }
}
