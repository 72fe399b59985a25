/**
 * What a development service tells the lifecycle (tools/services/lifecycle.ts): how to prepare
 * and start it, how to recognise its process, and how to ask it whether it is ready.
 *
 * @module
 */

/** The command line of a service's long-running process. */
export interface ServiceCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** One service started by `npm run services:up`. */
export interface Service {
  /** Short name, also the folder under `.services/`. */
  readonly name: string;
  /** Where clients reach it, as printed (e.g. `127.0.0.1:19092`, `redis://127.0.0.1:16379`). */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  readonly pidFile: string;
  readonly logFile: string;
  /** A substring of the process's command line, so a recycled pid is never taken for ours. */
  readonly marker: string;
  /** How long a fresh start may take before `up` gives up. */
  readonly startTimeoutMs: number;
  /** How long a SIGTERM may take before `down` sends SIGKILL. */
  readonly stopGraceMs: number;
  /** One-time work before the first start: install, download, format. Idempotent. */
  prepare(log: (line: string) => void): Promise<void>;
  /** The command to run, detached, with the repository root as working directory. */
  command(): Promise<ServiceCommand>;
  /** Resolves when the service answers a real request; rejects with the reason otherwise. */
  probe(): Promise<void>;
}
