/**
 * `bench:consumer -- --memory-limit`'s cgroup, on a directory laid out as each cgroup version's
 * file system (the real one needs root): the limit written where that version reads it, the
 * process moved into it before the command runs (the same pid), the cgroup removed after.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createMemoryCgroup } from '../../tools/bench/memory-limit.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fakeRoot(version: 1 | 2): string {
  const root = mkdtempSync(join(tmpdir(), 'cgroup-'));
  roots.push(root);
  if (version === 2) {
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory\n');
    writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu memory\n');
  } else mkdirSync(join(root, 'memory'));
  return root;
}

test('cgroup v1: the limit in memory.limit_in_bytes of a group under memory/', () => {
  const root = fakeRoot(1);
  const cgroup = createMemoryCgroup(512, 'bench', root);
  expect(cgroup.dir).toBe(join(root, 'memory', 'bench'));
  expect(readFileSync(join(cgroup.dir, 'memory.limit_in_bytes'), 'utf8')).toBe('536870912');
});

test('cgroup v2: the limit in memory.max of a group under the root', () => {
  const root = fakeRoot(2);
  const cgroup = createMemoryCgroup(384, 'bench', root);
  expect(cgroup.dir).toBe(join(root, 'bench'));
  expect(readFileSync(join(cgroup.dir, 'memory.max'), 'utf8')).toBe(String(384 * 1024 * 1024));
});

test('the wrapped command joins the group as itself, then runs with its arguments', () => {
  const cgroup = createMemoryCgroup(512, 'bench', fakeRoot(1));
  const [command, args] = cgroup.wrap(process.execPath, ['-e', 'console.log(process.pid)', 'a b']);
  const pid = execFileSync(command, args, { encoding: 'utf8' }).trim();
  expect(readFileSync(join(cgroup.dir, 'cgroup.procs'), 'utf8').trim()).toBe(pid);
  const [, argsEchoed] = cgroup.wrap(process.execPath, [
    '-e',
    'console.log(JSON.stringify(process.argv.slice(1)))',
    'a b',
    '$HOME',
  ]);
  expect(JSON.parse(execFileSync(command, argsEchoed, { encoding: 'utf8' }))).toEqual([
    'a b',
    '$HOME',
  ]);
  // A real cgroup's files go with it; the fake's are plain files.
  for (const file of ['cgroup.procs', 'memory.limit_in_bytes']) rmSync(join(cgroup.dir, file));
  cgroup.remove();
  expect(existsSync(cgroup.dir)).toBe(false);
});

test('cgroup v2 without the memory controller for its groups: an error saying how to hand it', () => {
  const root = fakeRoot(2);
  writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu\n');
  expect(() => createMemoryCgroup(512, 'bench', root)).toThrow('echo +memory >');
});

test('a group left by an earlier run: an error naming it', () => {
  const root = fakeRoot(1);
  mkdirSync(join(root, 'memory', 'bench'));
  expect(() => createMemoryCgroup(512, 'bench', root)).toThrow(
    `the cgroup ${join(root, 'memory', 'bench')} exists`,
  );
});

test('no memory controller: an error naming where it looked', () => {
  const root = mkdtempSync(join(tmpdir(), 'cgroup-'));
  roots.push(root);
  expect(() => createMemoryCgroup(512, 'bench', root)).toThrow(
    `no memory cgroup controller under ${root}`,
  );
});
