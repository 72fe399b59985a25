/**
 * What a client of ours says first when it cannot reach a secure service: the store opened as
 * the service opens it, and the service's own process, read until its first outage line.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import type { StoreConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/open.ts';

/** The message of the first error the store reports while opening `config`. */
export async function firstStoreError(config: StoreConfig): Promise<string> {
  let report: (message: string) => void = () => undefined;
  const reported = new Promise<string>((resolve) => (report = resolve));
  const opened = openStore(config, { nowMs: Date.now, onError: (error) => report(error.message) });
  try {
    return await reported;
  } finally {
    await opened.store.close();
  }
}

/** What a service process printed up to its first line saying a dependency is not reachable. */
export interface Outage {
  /** That line, parsed (pino JSON). */
  readonly line: { readonly msg: string; readonly reason?: string };
  /** Everything printed until then. */
  readonly output: string;
  /** Whether the process was still running then (it retries, it does not exit). */
  readonly running: boolean;
}

/**
 * Starts `service/main.ts --role <role>` with `env` (over an environment without the plaintext
 * services' variables) and stops it once it said a dependency is not reachable.
 */
export async function firstOutage(role: string, env: Record<string, string>): Promise<Outage> {
  const base = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(KAFKA_|REDIS_|UPSTASH_|STORE$)/.test(name)) delete base[name];
  }
  const child = spawn(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', 'service/main.ts', '--role', role],
    { env: { ...base, PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const found = new Promise<Outage>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find((text) => text.includes('not reachable; retrying'));
      if (line !== undefined) {
        resolve({
          line: JSON.parse(line) as Outage['line'],
          output,
          running: child.exitCode === null,
        });
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('close', (code) => reject(new Error(`the service exited with ${code}:\n${output}`)));
  });
  try {
    return await found;
  } finally {
    child.kill('SIGTERM');
  }
}
