/**
 * The same closed-loop load from a generator no one here wrote: Debian's `wrk`
 * (`apt-get install wrk`), with as many connections as the benchmark's own, over the same paths
 * in turn (a Lua script), the key in its header. It runs after the benchmark's own load, so the
 * server is warm. Its figures are printed beside the benchmark's, as a check of the generator.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one wrk run measured. */
export interface WrkResult {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers other than 2xx or 3xx. */
  readonly failures: number;
}

/** A Lua string literal of `text` (the paths and the key are plain ASCII). */
function lua(text: string): string {
  return `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** Milliseconds of a wrk duration (`812.00us`, `5.12ms`, `1.02s`). */
function durationMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (match === null) return Number.NaN;
  const value = Number(match[1]);
  const unit = { us: 0.001, ms: 1, s: 1_000, m: 60_000 }[match[2] as 'us' | 'ms' | 's' | 'm'];
  return value * unit;
}

/** Runs wrk against `url` over `paths` in turn; throws when wrk is missing or fails. */
export function runWrk(plan: {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
}): WrkResult {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'paths.lua');
    const headers = Object.entries(plan.headers).map(([name, value]) =>
      `[${lua(name)}] = ${lua(value)}`
    );
    writeFileSync(
      script,
      `local paths = { ${plan.paths.map(lua).join(', ')} }\n` +
        `local headers = { ${headers.join(', ')} }\n` +
        'local i = 0\n' +
        'request = function()\n' +
        '  i = i + 1\n' +
        '  return wrk.format("GET", paths[(i % #paths) + 1], headers)\n' +
        'end\n',
    );
    const run = spawnSync('wrk', [
      '-t2',
      `-c${plan.connections}`,
      `-d${plan.seconds}s`,
      '--latency',
      '-s',
      script,
      plan.url,
    ], { encoding: 'utf8' });
    if (run.error !== undefined) {
      throw new Error(`wrk could not run (${run.error.message}): apt-get install wrk`);
    }
    const out = run.stdout;
    const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    if (run.status !== 0 || !Number.isFinite(perSecond)) {
      throw new Error(`wrk failed (exit ${run.status}): ${run.stderr}${out}`);
    }
    return {
      perSecond,
      p50Ms: durationMs(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''),
      p99Ms: durationMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
      failures: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
