/**
 * What a process's memory is made of, sampled while it runs: loaded into a consumer (or any
 * process of the service) with `node --import ./tools/bench/memory-probe.ts`, it writes one JSON
 * line a second to `$MEMORY_PROBE_DIR/<pid>.jsonl` (nothing when the variable is unset, or in a
 * process started without `--role`):
 * `process.memoryUsage()` (rss, heapTotal, heapUsed, external, arrayBuffers), each V8 heap
 * space's size and used size (MiB), the garbage collections since the last line (count and ms,
 * minor and major) and the heap used right after the last major collection (what was live then).
 * `MEMORY_PROBE_SNAPSHOT_MIB=N` also writes one heap snapshot (`<pid>.heapsnapshot` in the same
 * directory) the first time the RSS reaches N MiB. `MEMORY_PROBE_SAMPLING_S=N` also runs V8's
 * sampling heap profiler for N seconds, from second `MEMORY_PROBE_SAMPLING_FROM_S` (0 by
 * default), counting what a major collection frees but not what a scavenge frees (what outlived
 * the young generation: where it was allocated), and writes it as `<pid>.heapprofile` (open it in
 * Chrome's DevTools). `MEMORY_PROBE_GC_AT_S=N` runs one major collection at second N
 * (`MEMORY_PROBE_GC_FLAVOR=last-resort`: one that also compacts and gives memory back), to tell
 * garbage from what is live. `tools/bench/memory-report.ts DIR` summarizes the lines. A bench tool, never
 * part of the service.
 *
 * @module
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

const MIB = 1024 * 1024;
const dir = process.env.MEMORY_PROBE_DIR;
const snapshotMiB = Number(process.env.MEMORY_PROBE_SNAPSHOT_MIB || 'NaN');
const samplingSeconds = Number(process.env.MEMORY_PROBE_SAMPLING_S || 'NaN');
const samplingFromSeconds = Number(process.env.MEMORY_PROBE_SAMPLING_FROM_S ?? '0') || 0;

// Only in a role process of the service: with `NODE_OPTIONS=--import=...` the tool that starts
// them loads it too.
if (dir !== undefined && dir !== '' && process.argv.includes('--role')) start(dir);

function start(directory: string): void {
  mkdirSync(directory, { recursive: true });
  if (samplingSeconds > 0) {
    const file = join(directory, `${process.pid}.heapprofile`);
    setTimeout(() => sampleSurvivors(file), samplingFromSeconds * 1000).unref();
  }
  const gcAt = Number(process.env.MEMORY_PROBE_GC_AT_S || 'NaN');
  if (gcAt > 0) {
    v8.setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as (options?: object) => void;
    const flavor = process.env.MEMORY_PROBE_GC_FLAVOR || 'regular';
    setTimeout(() => collect({ type: 'major', execution: 'sync', flavor }), gcAt * 1000).unref();
  }
  const file = join(directory, `${process.pid}.jsonl`);
  const startedMs = Date.now();
  let gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
  let liveAfterMajorMiB: number | null = null;
  let snapshotTaken = false;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { detail } = entry as { detail?: { kind?: number } };
      const kind = detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gc.major += 1;
        gc.majorMs += entry.duration;
        liveAfterMajorMiB = process.memoryUsage().heapUsed / MIB;
      } else {
        gc.minor += 1;
        gc.minorMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  const round = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;
  const sample = () => {
    const usage = process.memoryUsage();
    const spaces: Record<string, [size: number, used: number]> = {};
    for (const space of v8.getHeapSpaceStatistics()) {
      spaces[space.space_name] = [round(space.space_size), round(space.space_used_size)];
    }
    const line = {
      s: Math.round((Date.now() - startedMs) / 1000),
      rss: round(usage.rss),
      heapTotal: round(usage.heapTotal),
      heapUsed: round(usage.heapUsed),
      external: round(usage.external),
      arrayBuffers: round(usage.arrayBuffers),
      heapLimit: round(v8.getHeapStatistics().heap_size_limit),
      liveAfterMajor: liveAfterMajorMiB === null ? null : Math.round(liveAfterMajorMiB * 10) / 10,
      gc: {
        minor: gc.minor,
        minorMs: Math.round(gc.minorMs),
        major: gc.major,
        majorMs: Math.round(gc.majorMs),
      },
      spaces,
    };
    gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    if (!snapshotTaken && usage.rss / MIB >= snapshotMiB) {
      snapshotTaken = true;
      v8.writeHeapSnapshot(join(directory, `${process.pid}.heapsnapshot`));
    }
  };
  setInterval(sample, 1000).unref();
}

/** Samples what outlives a scavenge for `samplingSeconds`, then writes it to `file`. */
function sampleSurvivors(file: string): void {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
  setTimeout(() => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error === null) writeFileSync(file, JSON.stringify(result.profile));
      session.disconnect();
    });
  }, samplingSeconds * 1000).unref();
}
