/**
 * Runs the service as a child process (the README's start command, or Deno), reads the URL
 * and the generated API key from its banner, and stops it with SIGTERM.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { until } from '../../support/poll.ts';

/** A running child service. */
export interface ChildService {
  readonly url: string;
  readonly key: string;
  /** Everything the child printed so far. */
  output(): string;
  /** SIGTERM to the child's process group; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The environment of an embedded-default child: no Kafka, no Redis, a free port. */
export function embeddedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(KAFKA_|REDIS_|UPSTASH_|API_KEYS|STORE$|PORT$|DEMO$)/.test(name)) delete env[name];
  }
  return { ...env, PORT: '0', LOG_LEVEL: 'info', ...extra };
}

/** Starts `command` and waits (up to `timeoutMs`) for its banner. */
export async function startChild(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 90_000,
): Promise<ChildService> {
  const child: ChildProcess = spawn(command, [...args], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // 'close', not 'exit': the service (a grandchild under npm or deno task) may still have
  // output in the pipes when the launcher exits; 'close' comes once every writer closed them.
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code))
  );
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch (error) {
        if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
      }
    }
    return await exited;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    const key = /API key: (\S+)\s+\(generated/.exec(output)?.[1];
    // The banner's last line: it is printed line by line, and may reach the pipe in pieces.
    const bannerEnded = /OpenAPI: \S+/.test(output);
    if (url !== undefined && key !== undefined && bannerEnded) {
      return { url, key, output: () => output, stop };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${command} ${args.join(' ')} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits (up to `timeoutMs`) until `service`'s `/readyz` answers 200, as a load balancer does
 * before it sends traffic: a process listens before its store is reached (a Redis Cluster's
 * first connection can take a few hundred ms), and answers 503 until then.
 */
export async function untilReady(service: ChildService, timeoutMs = 30_000): Promise<void> {
  await until(`${service.url}/readyz to answer 200`, timeoutMs, async () => {
    const response = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return response.status === 200 ? true : null;
  });
}
