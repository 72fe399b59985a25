/**
 * A free TCP port on loopback, for a server a test or a tool starts itself. The system names a
 * port nothing listens on; between that moment and the server's own bind, another process asking
 * the same (tests run side by side) may be named the same port, and one of the two servers then
 * finds it taken (CI's faults tier once failed so). So each port handed out is also reserved, by
 * a file of its number created exclusively in a directory every process of this machine shares,
 * and a port another process reserved in the last {@link RESERVED_MS} is not handed out again.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a port handed out stays reserved: longer than any server here takes to bind it. */
export const RESERVED_MS = 10 * 60_000;
/** Ports asked of the system before giving up. */
const ATTEMPTS = 100;
/** Where the reservations live (shared by every checkout and process of this machine). */
export const RESERVATIONS = join(tmpdir(), 'streaming-endpoints-ports');

/** Options of {@link freePort}. */
export interface FreePortOptions {
  /**
   * Also needs the port this far above it free, and reserves it too: a Redis Cluster node binds
   * its bus at its port + 10000.
   */
  readonly alsoAbove?: number;
}

/**
 * A port nothing listens on at the moment of the call and no process of this machine was handed
 * in the last {@link RESERVED_MS}, reserved for the caller (with `alsoAbove`, that one too).
 *
 * @example
 * ```ts
 * const port = await freePort();
 * const clusterNode = await freePort({ alsoAbove: 10_000 });
 * ```
 */
export async function freePort(options: FreePortOptions = {}): Promise<number> {
  mkdirSync(RESERVATIONS, { recursive: true });
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await systemPort();
    const companion = options.alsoAbove === undefined ? null : port + options.alsoAbove;
    if (companion !== null && (companion > 65_535 || !(await bindable(companion)))) continue;
    if (!reservePort(port)) continue;
    if (companion === null || reservePort(companion)) return port;
  }
  throw new Error(
    `no free TCP port on 127.0.0.1 in ${ATTEMPTS} tries (reservations in ${RESERVATIONS})`,
  );
}

/** A port the system names as free now. */
function systemPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free TCP port'));
      });
    });
  });
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
 * younger than {@link RESERVED_MS}.
 */
export function reservePort(port: number, directory: string = RESERVATIONS): boolean {
  const file = join(directory, String(port));
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
  // Reserved before: taken again once that reservation is old (its server bound long ago, or
  // never came). Two processes may both find it old at once; the system's bind still decides
  // between them then, as it did without reservations.
  if (Date.now() - statSync(file).mtimeMs < RESERVED_MS) return false;
  const now = new Date();
  utimesSync(file, now, now);
  return true;
}
