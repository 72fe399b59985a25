/**
 * A memory limit for a process a bench starts (`bench:consumer -- --memory-limit MIB`): a memory
 * cgroup of its own, which the process joins before it runs, so that V8 sizes its heap from the
 * limit as it does in a container with that limit (Node reads it as `process.constrainedMemory()`;
 * Deno reports it too). cgroup v2's `memory.max`, or v1's `memory.limit_in_bytes`; Linux,
 * as a user who may create cgroups (root here). A bench tool, never part of the service.
 *
 * @example
 * ```ts
 * const cgroup = createMemoryCgroup(512, `bench-consumer-${process.pid}`);
 * const [command, args] = cgroup.wrap(process.execPath, ['service/main.ts']);
 * spawn(command, args); // ...and once it has exited:
 * cgroup.remove();
 * ```
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A memory cgroup made for one process. */
export interface MemoryCgroup {
  /** Its directory. */
  readonly dir: string;
  /**
   * `command` and `args` as a shell that moves itself into the cgroup, then becomes the command
   * (the same process: its pid is the one spawned).
   */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** Removes the cgroup; call once its process has exited. */
  remove(): void;
}

/**
 * Makes the cgroup `name` limited to `limitMiB` MiB under `root` (the cgroup file system); throws
 * an Error naming `root` where it finds no memory controller.
 */
export function createMemoryCgroup(
  limitMiB: number,
  name: string,
  root = '/sys/fs/cgroup',
): MemoryCgroup {
  const bytes = String(limitMiB * 1024 * 1024);
  const v2 = existsSync(join(root, 'cgroup.controllers'));
  const dir = v2 ? join(root, name) : join(root, 'memory', name);
  if (!v2 && !existsSync(join(root, 'memory'))) {
    throw new Error(
      `no memory cgroup controller under ${root}: --memory-limit needs Linux cgroups`,
    );
  }
  if (v2 && !/\bmemory\b/.test(readText(join(root, 'cgroup.subtree_control')))) {
    throw new Error(
      `${root} does not hand the memory controller to its groups: ` +
        `echo +memory > ${join(root, 'cgroup.subtree_control')} (as root)`,
    );
  }
  try {
    mkdirSync(dir);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
    throw new Error(`the cgroup ${dir} exists (left by a run that did not end?): rmdir it`);
  }
  try {
    writeFileSync(join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), bytes);
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return {
    dir,
    wrap: (command, args) => [
      'sh',
      ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, command, ...args],
    ],
    remove: () => rmdirSync(dir),
  };
}

/** The text of `file`, or '' where there is none. */
function readText(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
