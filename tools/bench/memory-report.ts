/**
 * `node tools/bench/memory-report.ts DIR`: summarizes the lines `memory-probe.ts` wrote in DIR,
 * one paragraph per process: at its highest RSS, what the RSS was made of (V8's spaces, size
 * and used, external and array buffers, and the rest: code, stacks, the allocator's own); the
 * most live heap seen right after a major collection; the collections' count and time.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One line of `memory-probe.ts`. */
export interface ProbeLine {
  readonly s: number;
  readonly rss: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly heapLimit: number;
  readonly liveAfterMajor: number | null;
  readonly gc: {
    readonly minor: number;
    readonly minorMs: number;
    readonly major: number;
    readonly majorMs: number;
  };
  readonly spaces: Readonly<Record<string, readonly [size: number, used: number]>>;
}

/** The paragraph of one process's lines. */
export function describeProbe(name: string, lines: readonly ProbeLine[]): string {
  const peak = lines.reduce<ProbeLine | undefined>(
    (best, line) => (best === undefined || line.rss > best.rss ? line : best),
    undefined,
  );
  if (peak === undefined) return `${name}: no samples`;
  const spaces = Object.entries(peak.spaces)
    .filter(([, [size]]) => size >= 0.5)
    .map(([space, [size, used]]) => `${space.replace(/_space$/, '')} ${size}/${used}`)
    .join(', ');
  const live = lines.flatMap((line) => line.liveAfterMajor === null ? [] : [line.liveAfterMajor]);
  const sum = (pick: (line: ProbeLine) => number) =>
    lines.reduce((total, line) => total + pick(line), 0);
  const other = peak.rss - peak.heapTotal - peak.external;
  return [
    `${name}: ${lines.length} s sampled, heap limit ${peak.heapLimit} MiB`,
    `  at the highest RSS (${peak.rss} MiB, second ${peak.s}): V8 heap ${peak.heapTotal} MiB ` +
    `(${peak.heapUsed} used), external ${peak.external} (array buffers ${peak.arrayBuffers}), ` +
    `the rest ${Math.round(other * 10) / 10} (code, stacks, the allocator's)`,
    `  spaces, size/used MiB: ${spaces}`,
    `  live after a major GC: highest ${live.length === 0 ? '-' : Math.max(...live)} MiB, ` +
    `last ${live.at(-1) ?? '-'} MiB`,
    `  collections: ${sum((line) => line.gc.minor)} minor (${sum((line) => line.gc.minorMs)} ms), ${
      sum((line) => line.gc.major)
    } major (${sum((line) => line.gc.majorMs)} ms)`,
  ].join('\n');
}

/** Every process's lines in `dir`, by file name. */
export function readProbes(dir: string): Map<string, ProbeLine[]> {
  const probes = new Map<string, ProbeLine[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort()) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter((line) => line !== '');
    probes.set(file.replace(/\.jsonl$/, ''), lines.map((line) => JSON.parse(line) as ProbeLine));
  }
  return probes;
}

if (import.meta.main) {
  const dir = process.argv[2];
  if (dir === undefined) {
    console.error('usage: node tools/bench/memory-report.ts DIR');
    process.exit(2);
  }
  for (const [name, lines] of readProbes(dir)) console.log(describeProbe(`process ${name}`, lines));
}
