/**
 * A free TCP port on loopback, for a server a test or a tool starts itself. Two races are kept
 * out (CI's faults tier once failed on one: a port its Redis Cluster was handed was taken before
 * the node bound it):
 *
 * - With the processes of other tests, asking at the same time: each port handed out is reserved,
 *   by a file of its number created exclusively in a directory this user's processes share, and
 *   a port reserved in the last {@link RESERVED_MS} is not handed out again.
 * - With the system's own choices: a port is drawn below the system's ephemeral range (Linux's
 *   `ip_local_port_range`), where neither a server listening on port 0 nor an outgoing
 *   connection is ever given one. With `alsoAbove`, the port that far above it (a Redis Cluster
 *   node's bus) stays below that range too.
 *
 * @module
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a port handed out stays reserved: longer than any server here takes to bind it. */
export const RESERVED_MS = 10 * 60_000;
/** Ports tried before giving up. */
const ATTEMPTS = 200;
/** The lowest port handed out: above the well-known and most registered services' ports. */
const LOWEST = 10_000;
/** The system's first ephemeral port where it cannot be read (Linux's default). */
const EPHEMERAL_DEFAULT = 32_768;

/** Where this user's reservations live (shared by every checkout and process of the user). */
export const RESERVATIONS = join(
  tmpdir(),
  `streaming-endpoints-ports-${process.getuid?.() ?? 'user'}`,
);

/** Options of {@link freePort}. */
export interface FreePortOptions {
  /**
   * Also needs the port this far above it free, and reserves it too (a positive integer): a
   * Redis Cluster node binds its bus at its port + 10000.
   */
  readonly alsoAbove?: number;
  /** The ports to draw from, both included; default: below the system's ephemeral range. */
  readonly range?: readonly [number, number];
  /** Where the reservations are kept; default {@link RESERVATIONS}. */
  readonly directory?: string;
}

/**
 * A port nothing listens on at the moment of the call and no process of this user was handed in
 * the last {@link RESERVED_MS}, reserved for the caller (with `alsoAbove`, that one too).
 *
 * @example
 * ```ts
 * const port = await freePort();
 * const clusterNode = await freePort({ alsoAbove: 10_000 });
 * ```
 */
export async function freePort(options: FreePortOptions = {}): Promise<number> {
  const above = options.alsoAbove ?? 0;
  if (!Number.isSafeInteger(above) || above < 0 || options.alsoAbove === 0) {
    throw new Error(`alsoAbove must be a positive integer, not ${options.alsoAbove}`);
  }
  const [low, high] = options.range ?? [LOWEST, firstEphemeralPort() - 1 - above];
  if (!(Number.isSafeInteger(low) && Number.isSafeInteger(high) && low > 0 && low <= high)) {
    throw new Error(`no ports to draw from: ${low} to ${high} (alsoAbove ${above})`);
  }
  const directory = options.directory ?? RESERVATIONS;
  mkdirSync(directory, { recursive: true });
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (!reservePort(port, directory)) continue;
    const companion = above === 0 ? null : port + above;
    if (companion !== null && !reservePort(companion, directory)) {
      release(port, directory);
      continue;
    }
    // Reserved first, then tried: a port another process reserved is never bound, even briefly.
    if (await bindable(port) && (companion === null || await bindable(companion))) return port;
  }
  throw new Error(
    `no free TCP port on 127.0.0.1 from ${low} to ${high} in ${ATTEMPTS} tries (reservations ` +
      `in ${directory}; remove that directory if it holds many of them)`,
  );
}

/** The system's first ephemeral port (Linux's `ip_local_port_range`), or Linux's default. */
function firstEphemeralPort(): number {
  try {
    const range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
    const first = Number(range.trim().split(/\s+/)[0]);
    return Number.isSafeInteger(first) && first > LOWEST ? first : EPHEMERAL_DEFAULT;
  } catch {
    return EPHEMERAL_DEFAULT;
  }
}

/** Whether `port` can be listened on now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Reserves `port` in `directory` (existing); false when another reservation of it there is
 * younger than {@link RESERVED_MS}. An older one is taken over: moved aside first, which only one
 * of the processes that find it old at once can do.
 */
export function reservePort(port: number, directory: string = RESERVATIONS): boolean {
  const file = join(directory, String(port));
  if (create(file, directory)) return true;
  let modifiedMs: number;
  try {
    modifiedMs = statSync(file).mtimeMs;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return create(file, directory);
    throw failure(error, directory);
  }
  if (Date.now() - modifiedMs < RESERVED_MS) return false;
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw failure(error, directory);
  }
  unlinkSync(aside);
  return create(file, directory);
}

/** Creates `file` if it does not exist; whether it did. */
function create(file: string, directory: string): boolean {
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw failure(error, directory);
  }
}

/** Gives a reservation back. */
function release(port: number, directory: string): void {
  try {
    unlinkSync(join(directory, String(port)));
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw failure(error, directory);
  }
}

function codeOf(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? error.code : undefined;
}

function failure(error: unknown, directory: string): Error {
  return new Error(
    `free ports are reserved in ${directory}, which this process cannot use: check its owner ` +
      'and permissions, or remove it',
    { cause: error },
  );
}
