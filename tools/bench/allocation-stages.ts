/**
 * A consumer's sampled allocations (V8's sampling heap profiler, `HeapProfiler.stopSampling`,
 * run with the objects collected by either GC kept in the profile) split into the stages of
 * {@link ./profile-stages.ts}: each node's bytes (its `selfSize`, V8's estimate of the bytes
 * allocated there from the samples it took, scaled by their sampling odds) go to the stage of its
 * stack, as a CPU sample's time does, and to the nearest frame of the repository or of a library
 * (what to change to allocate less).
 *
 * @example
 * ```ts
 * const split = splitAllocations(profile, process.cwd());
 * split.bytes.get('parse'); // bytes parse allocated
 * ```
 *
 * @module
 */
import {
  type CallFrame,
  type ProfileNode,
  type Stage,
  stageResolver,
  STAGES,
} from './profile-stages.ts';

/** A node of a sampling heap profile's call tree, as the inspector returns it. */
export interface HeapProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  /** Bytes allocated at this node (not its children), estimated from its samples. */
  readonly selfSize: number;
  readonly children: readonly HeapProfileNode[];
}

/** A sampling heap profile: its call tree. */
export interface SamplingHeapProfile {
  readonly head: HeapProfileNode;
}

/** What {@link splitAllocations} found. */
export interface AllocationSplit {
  /** Bytes per stage. */
  readonly bytes: ReadonlyMap<Stage, number>;
  /** Bytes, every stage. */
  readonly total: number;
  /** Bytes by the nearest frame with a file (`function file:line`), with its stage. */
  readonly frames: ReadonlyMap<string, { readonly stage: Stage; readonly bytes: number }>;
}

/**
 * Splits the bytes allocated in `profile` by stage and by allocating frame; files are named from
 * the repository at `root`.
 *
 * @example
 * ```ts
 * const { bytes, total } = splitAllocations(profile, process.cwd());
 * ```
 */
export function splitAllocations(profile: SamplingHeapProfile, root: string): AllocationSplit {
  const nodes: ProfileNode[] = [];
  const parents = new Map<number, HeapProfileNode>();
  const byId = new Map<number, HeapProfileNode>();
  const pending: HeapProfileNode[] = [profile.head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    byId.set(node.id, node);
    nodes.push({
      id: node.id,
      callFrame: node.callFrame,
      children: node.children.map((child) => child.id),
    });
    for (const child of node.children) {
      parents.set(child.id, node);
      pending.push(child);
    }
  }
  const { stageOf, fileOf } = stageResolver(nodes, root);
  /** The nearest frame, from the node up, that is in a file. */
  const frameOf = (id: number): string => {
    for (let node = byId.get(id); node !== undefined; node = parents.get(node.id)) {
      const { url, functionName, lineNumber } = node.callFrame;
      if (url !== '') return `${functionName || '(anonymous)'} ${fileOf(url)}:${lineNumber + 1}`;
    }
    return '(no file)';
  };
  const bytes = new Map<Stage, number>(STAGES.map((stage) => [stage, 0]));
  const frames = new Map<string, { stage: Stage; bytes: number }>();
  let total = 0;
  for (const { id, selfSize } of byId.values()) {
    if (selfSize === 0) continue;
    const stage = stageOf(id);
    bytes.set(stage, (bytes.get(stage) ?? 0) + selfSize);
    total += selfSize;
    const frame = frameOf(id);
    const known = frames.get(frame);
    if (known === undefined) frames.set(frame, { stage, bytes: selfSize });
    else known.bytes += selfSize;
  }
  return { bytes, total, frames };
}
