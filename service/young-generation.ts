/**
 * Whether V8 was left to size a role's young generation from a memory limit. V8 sizes its heap
 * from the memory the process may use, which under a container's memory limit is that limit: at
 * 512 MiB, a heap of 259 MiB whose young generation never grows past 1 MiB. A consumer then
 * collects it about 2,900 times in a catch-up of 300,000 events and spends 1.2 to 1.6 times the CPU
 * per event it spends there with its flags (docs/OPERATIONS.md, "A consumer's memory"). A role's
 * heap flags (service/heap-flags.ts) size it whatever the limit; a role started under a limit below
 * 1 GiB without them says so as it starts (on Deno only with `--allow-all`, which lets it read its
 * own command line).
 *
 * @example
 * ```ts
 * const unsized = unsizedYoungGeneration('consumers', processMemoryFacts());
 * if (unsized !== null) logger.warn(unsized, youngGenerationWarning(unsized));
 * ```
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { totalmem } from 'node:os';
import process from 'node:process';
import type { Role } from './start.ts';
import { API_HEAP_FLAGS, CONSUMER_HEAP_FLAGS, CONSUMER_SEMI_SPACE_MIB } from './heap-flags.ts';

/** What says whether V8 sized the young generation from a memory limit. */
export interface MemoryFacts {
  /** Bytes the process may use (`process.constrainedMemory()`): 0 when unknown. */
  readonly constrainedBytes: number;
  /** The machine's memory (`os.totalmem()`): a constraint at or above it limits nothing. */
  readonly totalBytes: number;
  /**
   * Every flag the process was started with: its command line and the runtime's variable of
   * flags (`NODE_OPTIONS`, Deno's `DENO_V8_FLAGS`); null when they cannot be known (Deno, where
   * `/proc/self` needs more than `--allow-read`).
   */
  readonly flags: string | null;
}

/** A limit below this leaves V8's own young generation too small (16 MiB at 1 GiB, measured). */
export const SMALL_LIMIT_BYTES = 1024 ** 3;

/**
 * The least limit a role that runs consumers was measured in with its flags (512 MiB: a peak of
 * 409 to 462 MiB); below it, the flags alone could take the process past its limit.
 */
export const MEASURED_LIMIT_MIB = 512;

/** A young generation sized by V8 from a small memory limit. */
export interface UnsizedYoungGeneration {
  readonly role: Role;
  readonly limitMiB: number;
  /** The flags to start the role with. */
  readonly flags: readonly string[];
  /** The limit to give it first, where this one is below what its flags were measured in. */
  readonly raiseToMiB: number | null;
}

/** Whether this process runs on Deno (whose flags are read differently). */
const ON_DENO = process.versions.deno !== undefined;

/** Any spelling V8 takes of the flag that sizes the young generation, and nothing longer. */
const SEMI_SPACE_FLAG = /--max[-_]semi[-_]space[-_]size(?=[=\s,]|$)/;

/**
 * The flags each role should be started with: its own, and for `all` (the API and the consumers
 * in one process, and the embedded store's data) the consumers' young generation alone.
 */
const ROLE_FLAGS: Readonly<Record<Role, readonly string[]>> = {
  all: [`--max-semi-space-size=${CONSUMER_SEMI_SPACE_MIB}`],
  api: API_HEAP_FLAGS,
  consumers: CONSUMER_HEAP_FLAGS,
};

/**
 * The young generation V8 sized from a memory limit below {@link SMALL_LIMIT_BYTES}, or null: no
 * limit, a limit that large, or the flag given.
 */
export function unsizedYoungGeneration(
  role: Role,
  facts: MemoryFacts,
): UnsizedYoungGeneration | null {
  const { constrainedBytes, totalBytes, flags } = facts;
  const limited = constrainedBytes > 0 && constrainedBytes < totalBytes;
  if (
    !limited || constrainedBytes >= SMALL_LIMIT_BYTES || flags === null ||
    SEMI_SPACE_FLAG.test(flags)
  ) {
    return null;
  }
  const limitMiB = Math.round(constrainedBytes / 1024 ** 2);
  const runsConsumers = role !== 'api';
  return {
    role,
    limitMiB,
    flags: ROLE_FLAGS[role],
    raiseToMiB: runsConsumers && limitMiB < MEASURED_LIMIT_MIB ? MEASURED_LIMIT_MIB : null,
  };
}

/** What a role logs when it starts with a young generation V8 sized from a small limit. */
export function youngGenerationWarning(
  { role, limitMiB, flags, raiseToMiB }: UnsizedYoungGeneration,
): string {
  const raise = raiseToMiB === null ? '' : `give it a limit of at least ${raiseToMiB} MiB and `;
  return `the ${role} role runs under a memory limit of ${limitMiB} MiB without ` +
    '--max-semi-space-size, so V8 sized its young generation from the limit (1 MiB at 512 MiB): ' +
    'a consumer then spends 1.2 to 1.6 times the CPU per event it spends with the flags ' +
    `(measured at 512 MiB); ${raise}start the process with ${flags.join(' ')} (in NODE_OPTIONS, ` +
    `or --v8-flags= on Deno; docs/OPERATIONS.md, "A consumer's memory")`;
}

/**
 * This process's facts: its memory constraint, the machine's memory, and its flags, read from
 * `/proc/self/cmdline` where it may (it holds Deno's `--v8-flags=` too), else Node's `execArgv`,
 * with the runtime's variable of flags.
 */
export function processMemoryFacts(): MemoryFacts {
  const line = commandLine();
  const variable = ON_DENO ? 'DENO_V8_FLAGS' : 'NODE_OPTIONS';
  return {
    constrainedBytes: process.constrainedMemory?.() ?? 0,
    totalBytes: totalmem(),
    flags: line === null ? null : `${line} ${process.env[variable] ?? ''}`,
  };
}

/**
 * The process's command line, its arguments separated by spaces; null on Deno without the right to
 * read it. Read until its end: the file's size says 0.
 */
function commandLine(): string | null {
  let fd: number;
  try {
    fd = openSync('/proc/self/cmdline', 'r');
  } catch {
    return ON_DENO ? null : process.execArgv.join(' ');
  }
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.alloc(4096);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks).toString('latin1').replaceAll('\0', ' ');
  } finally {
    closeSync(fd);
  }
}
