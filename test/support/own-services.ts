/**
 * Faults for services a test runs for itself (`tools/services`: a broker or a Redis of its own,
 * on free ports): signals to their processes, and waiting for them to be gone.
 *
 * @module
 */
import { readPid } from '../../tools/services/process.ts';
import type { Service } from '../../tools/services/service.ts';

/** Sends `signal` to the process a service of ours runs as. */
export function signal(service: Service, name: NodeJS.Signals): void {
  const pid = readPid(service.pidFile);
  if (pid === undefined) throw new Error(`${service.name} has no pid file`);
  process.kill(pid, name);
}

/** Resolves once the process of `service` has exited. */
export async function gone(service: Service): Promise<void> {
  const pid = readPid(service.pidFile);
  for (;;) {
    try {
      if (pid !== undefined) process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
