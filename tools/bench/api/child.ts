/**
 * The API process under load: `node service/main.ts --role api` on a free port, started and
 * stopped by the benchmark.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import process from 'node:process';

/** A running API process. */
export interface ApiProcess {
  readonly url: string;
  /** The process id, e.g. to read its memory from /proc. */
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the API with `env` added to this process's environment; waits for its banner.
 * `entry` is the script to run (another checkout's entry point, to measure a version before).
 */
export async function startApi(
  env: Readonly<Record<string, string>>,
  entry: readonly string[] = ['service/main.ts', '--role', 'api'],
): Promise<ApiProcess> {
  const clean = { ...process.env };
  for (const name of Object.keys(clean)) {
    if (/^(KAFKA_|UPSTASH_|DEMO$|STORE$)/.test(name)) delete clean[name];
  }
  const child: ChildProcess = spawn(process.execPath, [...entry], {
    env: { ...clean, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    if (url !== undefined) {
      return {
        url,
        pid: child.pid ?? 0,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`the API did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
