/**
 * `npm run bench:api`'s servers of fixed bytes (`./fixed-body-server.ts`), each answering a
 * workload's captured answers and computing nothing: the ceiling (bare `node:http`), and with
 * `--framework` the floors of the framework the API is built on.
 *
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi } from './child.ts';
import type { DriveResult } from './load.ts';

/** One server of fixed bytes: what it is called, and its environment. */
export interface FixedBytesServer {
  readonly label: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Bare `node:http`: the ceiling of a workload. */
export const CEILING: FixedBytesServer = {
  label: 'ceiling (fixed bytes, bare node:http)',
  env: { FRAMEWORK: 'none', MIDDLEWARES: '0' },
};

/**
 * The floors of `--framework`: a Hono app of one route, alone and after as many pass-through
 * middlewares as the API runs under bench:api (five: its rate limit is off there; six with one).
 */
export const FLOORS: readonly FixedBytesServer[] = [
  { label: 'Hono, one route', env: { FRAMEWORK: 'hono', MIDDLEWARES: '0' } },
  {
    label: "Hono, one route after five pass-through middlewares (the API's under bench:api)",
    env: { FRAMEWORK: 'hono', MIDDLEWARES: '5' },
  },
];

/** Starts `server` over `answers`, drives it with `drive0`, stops it. */
export async function driveFixedBytes(
  answers: Record<string, { body: string; etag: string }>,
  server: FixedBytesServer,
  drive0: (url: string, pid: number) => Promise<DriveResult>,
): Promise<DriveResult> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const file = join(directory, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const child = await startApi({ ANSWERS_FILE: file, ...server.env }, [
    'tools/bench/api/fixed-body-server.ts',
  ]);
  try {
    return await drive0(child.url, child.pid);
  } finally {
    await child.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
