/**
 * Frames of made-up profiles for the tests of tools/bench's profile splits, each test in a
 * repository root of its own (a temporary directory removed after its file's tests).
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { CallFrame } from '../../tools/bench/profile-stages.ts';

/**
 * A fresh root directory, removed after the calling file's tests, and how to make a frame of a
 * file in it (from the root, or a `node:` module, or '' for a builtin).
 */
export function profileRoot(name: string): {
  readonly root: string;
  readonly frame: (file: string, functionName: string, lineNumber?: number) => CallFrame;
} {
  const root = mkdtempSync(join(tmpdir(), `${name}-`));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const frame = (file: string, functionName: string, lineNumber = 0): CallFrame => {
    const url = file === '' || file.startsWith('node:') ? file : `file://${root}/${file}`;
    return { functionName, url, lineNumber };
  };
  return { root, frame };
}
