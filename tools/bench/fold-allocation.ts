/**
 * What `bench:fold`'s round allocates per event, by stage and by function, garbage included:
 * the heap the collector has to go through, which `bench:fold`'s CPU figure pays for.
 *
 *   node tools/bench/fold-allocation.ts [--top 25]
 *
 * Method: `bench:fold`'s round (100,000 generated events, 12 partitions per source, flushes of
 * 3,000 events into a store that keeps nothing) once to warm up, then once under V8's sampling
 * heap profiler (one sample per 32 KiB on average, objects collected by either collector kept in
 * the profile). Each sample is counted for the stage of the innermost frame of its stack that
 * `profile-stages.ts` names (`bench:consumer`'s stages), and for the function that allocated it.
 *
 * @module
 */
import { Session } from 'node:inspector/promises';
import { toolArgs } from '../tool-args.ts';
import { emptyStore, foldLines, foldRound } from './fold-round.ts';
import { environment } from './measure.ts';
import { type CallFrame, frameStage, type Stage, STAGES } from './profile-stages.ts';

interface SamplingNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: readonly SamplingNode[];
}

/** A frame's file under the repository (`src/rollup/fold.ts`), or its URL. */
function repoPath(url: string): string {
  return url.replace(/^file:\/\/.*?\/(src|tools|consumers|api|node_modules)\//, '$1/');
}

const EVENTS = 100_000;
const FLUSH_EVENTS = 3_000;

const { values } = toolArgs(import.meta.url, {
  options: { top: { type: 'string', default: '25' } },
});
const lines = foldLines(EVENTS);
const store = emptyStore(() => {});
console.log(`fold allocation: ${environment()}`);
await foldRound(store, lines, FLUSH_EVENTS);

const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 32 * 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
await foldRound(store, lines, FLUSH_EVENTS);
const { profile } = await session.post('HeapProfiler.stopSampling') as unknown as {
  profile: { head: SamplingNode };
};
session.disconnect();

const byStage = new Map<Stage, number>(STAGES.map((stage) => [stage, 0]));
const byFunction = new Map<string, number>();
let total = 0;
const visit = (node: SamplingNode, inherited: Stage) => {
  const file = repoPath(node.callFrame.url);
  const stage = frameStage(file, node.callFrame.functionName) ?? inherited;
  if (node.selfSize > 0) {
    total += node.selfSize;
    byStage.set(stage, (byStage.get(stage) ?? 0) + node.selfSize);
    const where = file === '' ? '(built-in)' : `${file}:${node.callFrame.lineNumber + 1}`;
    const name = `${node.callFrame.functionName || '(anonymous)'} ${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  }
  for (const child of node.children) visit(child, stage);
};
visit(profile.head, 'other');

const perEvent = (bytes: number) => `${Math.round(bytes / lines.length)}`.padStart(6);
console.log(`${perEvent(total)} bytes allocated per event (sampled)\n`);
console.log('stage                          bytes per event');
for (const [stage, bytes] of byStage) console.log(`${stage.padEnd(30)} ${perEvent(bytes)}`);
console.log(`\nfunctions by bytes allocated per event (top ${values.top})`);
for (
  const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))
) console.log(`${perEvent(bytes)}  ${name}`);
