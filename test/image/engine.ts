/**
 * The container engine the image test drives (`docker`, or podman where no Docker engine
 * answers), as tools/image/test.sh chose it: `IMAGE_ENGINE` and `IMAGE_NAME` in the
 * environment, and for podman its configuration (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF).
 * Containers run on the host's network, so their ports and the services' are on loopback.
 *
 * @module
 */
import { execFile } from 'node:child_process';

/** The engine's command, and the image under test. */
export const ENGINE = process.env['IMAGE_ENGINE'] === 'docker' ? 'docker' : 'podman';
export const IMAGE = process.env['IMAGE_NAME'] ?? 'localhost/streaming-endpoints:test';

/** What a command of the engine printed, and how it ended. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `ENGINE ...args` (rejects only when it cannot be run or outlives `timeoutMs`). */
export function engine(args: readonly string[], timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      ENGINE,
      [...args],
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`${ENGINE} ${args.join(' ')}: ${error.message}`, { cause: error }));
          return;
        }
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/** Runs `ENGINE ...args` and returns its output; rejects, with what it printed, when it fails. */
export async function engineOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const run = await engine(args, timeoutMs);
  if (run.code !== 0) {
    throw new Error(`${ENGINE} ${args.join(' ')} exited with ${run.code}: ${run.stderr}`);
  }
  return run.stdout;
}

/** How long the engine waits after SIGTERM before SIGKILL (Docker's and podman's default). */
export const GRACE_SECONDS = 10;

/** A started container of {@link IMAGE}. */
export interface Container {
  readonly name: string;
  /** What the container printed so far (stdout and stderr). */
  logs(): Promise<string>;
  /** Runs the image's own HEALTHCHECK command; true when the engine reports it healthy. */
  healthy(): Promise<boolean>;
  /** `stop` (SIGTERM, then SIGKILL after the grace period): exit code and seconds taken. */
  stop(): Promise<{ exitCode: number; seconds: number }>;
  /** Removes the container, running or not. */
  remove(): Promise<void>;
}

/**
 * Starts a container named `name` on the host's network with `env`, running the image's
 * entry point with `args` (the role); `runOptions` go to `run` as they are (volumes, say).
 */
export async function startContainer(
  name: string,
  env: Record<string, string>,
  args: readonly string[],
  runOptions: readonly string[] = [],
): Promise<Container> {
  const settings = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  // podman schedules health checks with systemd timers, which these machines lack: the test
  // runs the image's check itself (`podman healthcheck run`), and the timer is left off.
  const timer = ENGINE === 'podman' ? ['--health-interval', 'disable'] : [];
  await engine(['rm', '-f', name]);
  await engineOk([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    ...timer,
    ...settings,
    ...runOptions,
    IMAGE,
    ...args,
  ]);
  return {
    name,
    logs: async () => {
      const run = await engine(['logs', name]);
      return run.stdout + run.stderr;
    },
    healthy: async () => {
      if (ENGINE === 'podman') return (await engine(['healthcheck', 'run', name])).code === 0;
      // Docker runs the check on its own schedule (the Dockerfile's interval and start period).
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        const status = await engineOk(['inspect', '--format', '{{.State.Health.Status}}', name]);
        if (status.trim() === 'healthy') return true;
        if (status.trim() === 'unhealthy') return false;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      return false;
    },
    stop: async () => {
      const started = performance.now();
      await engineOk(['stop', '-t', String(GRACE_SECONDS), name], (GRACE_SECONDS + 60) * 1000);
      const seconds = (performance.now() - started) / 1000;
      const code = await engineOk(['inspect', '--format', '{{.State.ExitCode}}', name]);
      return { exitCode: Number(code.trim()), seconds };
    },
    remove: async () => {
      await engine(['rm', '-f', name]);
    },
  };
}
