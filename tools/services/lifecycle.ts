/**
 * The three idempotent operations on a {@link Service}: `up` (start unless running, wait until
 * it answers), `down` (stop only what `up` started, by pid) and `status`.
 *
 * @module
 */
import { relative } from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { acceptsConnections } from './probes.ts';
import {
  isOwnProcess,
  readPid,
  removePidFile,
  startDetached,
  stopProcess,
  tail,
} from './process.ts';
import type { Service } from './service.ts';
import { waitUntilReady } from './wait.ts';
import { messageOf } from '../../src/text/error-message.ts';

/** What `up` found or did. */
export interface UpResult {
  readonly state: 'started' | 'already-running';
  readonly pid: number;
}

/** What `down` did. `not-ours`: no pid file, so nothing of ours to stop. */
export type DownResult =
  | { readonly state: 'terminated' | 'killed' | 'not-running' }
  | { readonly state: 'not-ours'; readonly portInUse: boolean };

/** What `status` saw. */
export type StatusResult =
  | { readonly state: 'running'; readonly pid: number; readonly answers: boolean }
  | { readonly state: 'external' | 'stopped' };

/**
 * Starts `service` unless our process already runs, then waits until it answers. A port held
 * by a process `up` did not start is an error, even one that answers as this service: a
 * developer's own Redis or broker is never used (and so never emptied) by the project's tools.
 */
export async function up(service: Service, log: (line: string) => void): Promise<UpResult> {
  const recorded = readPid(service.pidFile);
  if (recorded !== undefined && isOwnProcess(recorded, service.marker)) {
    await waitUntilReady(() => service.probe(), {
      timeoutMs: service.startTimeoutMs,
      failFast: () =>
        isOwnProcess(recorded, service.marker) ? undefined : `process ${recorded} ended`,
    }).catch((error: unknown) => {
      throw startFailure(service, `running as pid ${recorded} but not answering`, error);
    });
    return { state: 'already-running', pid: recorded };
  }
  if (recorded !== undefined) removePidFile(service.pidFile);

  await service.prepare(log);

  if (await acceptsConnections(service.host, service.port)) {
    const answers = await service.probe().then(
      () => 'it answers as',
      () => 'it does not answer as',
    );
    throw new Error(
      `${service.host}:${service.port} is taken by a process that 'npm run services:up' did ` +
        `not start (${answers} ${service.name}). The project's tools never use a service they ` +
        'did not start: free the port, or point the tests at that service explicitly (they ' +
        'empty what they are given).',
    );
  }

  const { command, args, env } = await service.command();
  const started = startDetached({
    command,
    args,
    cwd: REPO_ROOT,
    logFile: service.logFile,
    pidFile: service.pidFile,
    ...(env === undefined ? {} : { env }),
  });
  let exit: string | undefined;
  started.exited.then(
    (code) => (exit = `exited with ${code}`),
    (error: unknown) => (exit = `could not be started: ${messageOf(error)}`),
  );
  try {
    await waitUntilReady(() => service.probe(), {
      timeoutMs: service.startTimeoutMs,
      failFast: () => exit === undefined ? undefined : `the process ${exit}`,
    });
  } catch (error) {
    await stopProcess(started.pid, service.marker, service.stopGraceMs);
    removePidFile(service.pidFile);
    throw startFailure(service, 'did not start', error);
  }
  return { state: 'started', pid: started.pid };
}

/** Stops the process that `up` started (SIGTERM, then SIGKILL after the grace period). */
export async function down(service: Service): Promise<DownResult> {
  const pid = readPid(service.pidFile);
  if (pid === undefined) {
    return { state: 'not-ours', portInUse: await acceptsConnections(service.host, service.port) };
  }
  const state = await stopProcess(pid, service.marker, service.stopGraceMs);
  removePidFile(service.pidFile);
  return { state };
}

/** Whether our process runs (and answers), someone else's answers on the port, or nothing. */
export async function status(service: Service): Promise<StatusResult> {
  const pid = readPid(service.pidFile);
  if (pid !== undefined && isOwnProcess(pid, service.marker)) {
    const answers = await service.probe().then(() => true, () => false);
    return { state: 'running', pid, answers };
  }
  return { state: (await acceptsConnections(service.host, service.port)) ? 'external' : 'stopped' };
}

function startFailure(service: Service, what: string, cause: unknown): Error {
  const logFile = relative(REPO_ROOT, service.logFile);
  const lastLines = tail(service.logFile, 25);
  return new Error(
    `${what}: ${messageOf(cause)}\n  see ${logFile}` +
      (lastLines === '' ? ' (empty)' : `, which ends with:\n${lastLines.replace(/^/gm, '    | ')}`),
    { cause },
  );
}
