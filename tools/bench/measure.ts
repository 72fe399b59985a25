/**
 * The timing loop shared by the benchmark scripts: warm up, then several timed rounds,
 * reporting the median rate. Benchmarks are scripts that print figures; nothing asserts on them.
 *
 * @module
 */

import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import process from 'node:process';
import { refuseFlag } from '../tool-args.ts';

/** Result of `measure`: items per second of each round, and their median. */
export interface Measurement {
  readonly median: number;
  readonly rounds: readonly number[];
}

/**
 * Runs `round` (which processes `items` items and returns a checksum, kept so the work cannot
 * be optimized away) once to warm up, then `rounds` times timed.
 *
 * @example
 * ```ts
 * const { median } = measure(() => work(), 10_000, 5); // items per second
 * ```
 */
export function measure(round: () => number, items: number, rounds = 5): Measurement {
  let checksum = round();
  const rates: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    checksum += round();
    rates.push(items / ((performance.now() - started) / 1000));
  }
  if (Number.isNaN(checksum)) console.log('checksum', checksum);
  const sorted = rates.toSorted((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, rounds: rates };
}

/**
 * A line describing the machine and runtime, printed with every benchmark.
 *
 * @example
 * ```ts
 * environment(); // 'node v24.21.0 (V8 13.6...), linux x64, 2 CPUs (...)'
 * ```
 */
export function environment(): string {
  const cpus = os.cpus();
  const deno = process.versions.deno;
  const runtime = deno === undefined ? `node ${process.version}` : `deno ${deno}`;
  return `${runtime} (V8 ${process.versions.v8}), ${process.platform} ${process.arch}, ${cpus.length} CPUs (${
    cpus[0]?.model ?? 'unknown'
  })`;
}

/**
 * A rate with thousands separators.
 *
 * @example
 * ```ts
 * rate(123456.7); // '123,457/s'
 * ```
 */
export function rate(perSecond: number): string {
  return `${Math.round(perSecond).toLocaleString('en-US')}/s`;
}

/**
 * CPU seconds (user + system) a process has used so far, from Linux's `/proc/<pid>/stat`
 * (clock ticks of 1/100 s); null where that file cannot be read (another OS, a process gone).
 *
 * @example
 * ```ts
 * const before = processCpuSeconds(child.pid);
 * ```
 */
export function processCpuSeconds(pid: number | undefined): number | null {
  return pid === undefined ? null : statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds (user + system) a process's main thread has used so far (the thread that runs
 * JavaScript, the one a CPU profile samples), from `/proc/<pid>/task/<pid>/stat`; null where
 * that file cannot be read.
 *
 * @example
 * ```ts
 * const helpers = processCpuSeconds(pid) - mainThreadCpuSeconds(pid); // GC helpers, compilers
 * ```
 */
export function mainThreadCpuSeconds(pid: number | undefined): number | null {
  return pid === undefined ? null : statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * CPU seconds (user + system) each thread of a process has used so far, by thread id, with its
 * name (`/proc/<pid>/task/<tid>/comm`: `node` for the main thread, `V8 DefaultWorke` for V8's
 * GC and compiler helpers, `libuv-worker`, `v8:ProfEvntProc` for a CPU profiler's own thread);
 * empty where `/proc` cannot be read.
 *
 * @example
 * ```ts
 * const threads = threadCpuSeconds(child.pid); // Map { 4242 => { name: 'node', seconds: 1.5 }, ... }
 * ```
 */
export function threadCpuSeconds(
  pid: number | undefined,
): Map<number, { readonly name: string; readonly seconds: number }> {
  const threads = new Map<number, { readonly name: string; readonly seconds: number }>();
  if (pid === undefined) return threads;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    const seconds = statCpuSeconds(`/proc/${pid}/task/${tid}/stat`);
    let name = '?';
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      // A thread that ended between the listing and this read.
    }
    if (seconds !== null) threads.set(Number(tid), { name, seconds });
  }
  return threads;
}

/** User + system CPU seconds of a `/proc` `stat` file; null where it cannot be read. */
function statCpuSeconds(path: string): number | null {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * The peak resident set size of a process so far, in bytes, from Linux's `/proc/<pid>/status`
 * (`VmHWM`); null where that file cannot be read.
 *
 * @example
 * ```ts
 * const peak = processPeakRssBytes(child.pid); // e.g. 187_211_776
 * ```
 */
export function processPeakRssBytes(pid: number | undefined): number | null {
  return statusBytes(pid, 'VmHWM');
}

/**
 * The resident set size of a process now, in bytes, from Linux's `/proc/<pid>/status`
 * (`VmRSS`); null where that file cannot be read.
 *
 * @example
 * ```ts
 * const rss = processRssBytes(child.pid); // e.g. 150_994_944
 * ```
 */
export function processRssBytes(pid: number | undefined): number | null {
  return statusBytes(pid, 'VmRSS');
}

/** A size field (kB) of `/proc/<pid>/status` in bytes; null where it cannot be read. */
function statusBytes(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

/**
 * A command-line flag's value as a positive integer; any other value ends the tool with a line
 * naming the flag ({@link refuseFlag}).
 *
 * @example
 * ```ts
 * positiveFlag('seconds', '20'); // 20
 * positiveFlag('seconds', '0'); // exits 2: --seconds must be a positive integer: got "0"
 * ```
 */
export function positiveFlag(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    refuseFlag(`--${name} must be a positive integer: got ${JSON.stringify(text)}`);
  }
  return value;
}
