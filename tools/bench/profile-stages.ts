/**
 * A consumer's CPU profile (`node --cpu-prof`) split into the stages of an event's way through
 * it: each sample goes to the stage of the first frame, walking its stack from the leaf towards
 * the root, that names one (see {@link frameStage}). Frames that name none (Node's internals,
 * V8's builtins, helpers shared by several stages such as `src/rollup/keys.ts`) pass the sample
 * on to their caller, so a socket write issued by node-redis is the Redis client's and a
 * `TextDecoder` call made by `parse` is parsing's.
 *
 * @example
 * ```ts
 * const split = splitProfile(profile, { fromUs, toUs, root: process.cwd() });
 * split.samples.get('fold'); // samples whose first stage frame is the fold's
 * ```
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One frame of a `.cpuprofile`, as V8 writes it. */
export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based. */
  readonly lineNumber: number;
}

/** A node of a `.cpuprofile`'s call tree. */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

/** The parts of a `.cpuprofile` the split reads. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** Microseconds of V8's monotonic clock (`process.hrtime()`'s, on Linux). */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The stages, in the order an event meets them; `gc`, `idle` and `other` last. */
export const STAGES = [
  'kafka',
  'parse',
  'validate',
  'fold',
  'writer',
  'merge',
  'encode',
  'redis',
  'gc',
  'other',
  'idle',
] as const;

/** A stage of {@link STAGES}. */
export type Stage = (typeof STAGES)[number];

/** What each stage holds, as the table prints it. */
export const STAGE_LABELS: Record<Stage, string> = {
  kafka: 'Kafka client: fetch, decode, decompress (and dead-letter sends)',
  parse: 'parse: UTF-8, JSON.parse, timestamp, derived fields',
  validate: 'validate: the schema validator (ajv)',
  fold: "fold: Fold.add and the aggregates' add",
  writer: 'writer bookkeeping: watermarks, admission, caches',
  merge: 'merge with stored parts: deserialize, merge',
  encode: 'encode stored states and script arguments',
  redis: 'Redis client: node-redis, its socket reads and writes',
  gc: 'garbage collector (main thread)',
  other: 'other: runner, processor, promise jobs, metrics, logging',
  idle: 'idle: waiting for Kafka or Redis',
};

/** Where the aggregates' own operations live: their name says the stage. */
const AGGREGATE_FILES = [
  'src/rollup/invocation-stats.ts',
  'src/rollup/usage-counts.ts',
  'src/rollup/quantiles.ts',
];
const AGGREGATE_OPERATIONS: Readonly<Record<string, Stage>> = {
  add: 'fold',
  merge: 'merge',
  deserialize: 'merge',
  fromSerialized: 'merge',
  serialize: 'encode',
  serializedText: 'encode',
  toSerialized: 'encode',
};
/** The committer's functions that are not encoding: bookkeeping of the writer's. */
const COMMIT_FUNCTIONS: Readonly<Record<string, Stage>> = {
  registerHosts: 'writer',
};
/** Files each wholly of one stage (paths from the repository's root). */
const FILE_STAGES: readonly (readonly [prefix: string, stage: Stage])[] = [
  ['node_modules/kafkajs/', 'kafka'],
  ['node_modules/snappyjs/', 'kafka'],
  ['node_modules/lz4js/', 'kafka'],
  ['src/kafka/', 'kafka'],
  ['node_modules/ajv/', 'validate'],
  ['src/events/schema.ts', 'validate'],
  ['src/events/', 'parse'],
  ['src/rollup/fold.ts', 'fold'],
  ['src/rollup/state-columns.ts', 'fold'],
  // Reading the parts a delta lacks, and merging the delta into them (the aggregates' own
  // merge and serialize frames, above, claim their samples first).
  ['src/rollup/part-merge.ts', 'merge'],
  ['src/rollup/partition-writer.ts', 'writer'],
  ['src/rollup/admission.ts', 'writer'],
  ['src/rollup/stream-admission.ts', 'writer'],
  ['src/rollup/commit-ledger.ts', 'writer'],
  ['src/rollup/unreadable.ts', 'merge'],
  ['src/store/scripts.ts', 'encode'],
  ['src/store/sorted-set-commands.ts', 'encode'],
  ['src/store/part-field.ts', 'encode'],
  ['node_modules/@redis/', 'redis'],
  ['node_modules/redis/', 'redis'],
  ['node_modules/cluster-key-slot/', 'redis'],
  ['src/store/redis.ts', 'redis'],
  ['src/store/scripted.ts', 'redis'],
  ['src/store/lua-script.ts', 'redis'],
  ['src/store/deadline.ts', 'redis'],
  ['src/async/timeout.ts', 'redis'],
  // The consumer's own loop and everything it calls that no stage above claims: a boundary, so
  // that the kafkajs frames below the runner's callbacks do not take them.
  ['consumers/', 'other'],
  ['service/', 'other'],
  ['node_modules/pino', 'other'],
  ['node_modules/prom-client/', 'other'],
];

/**
 * The stage a frame names, or null when it names none and the sample goes on to its caller.
 * `file` is the frame's path from the repository's root (or its URL when outside it);
 * `functionName` is, for an anonymous function of the repository, the name of the function
 * declared around it (see {@link enclosingFunction}).
 *
 * @example
 * ```ts
 * frameStage('src/rollup/fold.ts', 'add'); // 'fold'
 * frameStage('src/rollup/quantiles.ts', 'merge'); // 'merge'
 * frameStage('node:net', 'writeGeneric'); // null: its caller (node-redis, kafkajs) says whose
 * ```
 */
export function frameStage(file: string, functionName: string): Stage | null {
  if (file === '') {
    if (functionName === '(garbage collector)') return 'gc';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)' || functionName === '(root)') return 'other';
    // ajv's compiled validators are made with `new Function`: no file, named validateN.
    if (/^validate\d+$/.test(functionName)) return 'validate';
    return null;
  }
  if (AGGREGATE_FILES.includes(file)) return AGGREGATE_OPERATIONS[functionName] ?? null;
  if (file === 'src/rollup/project-commit.ts') return COMMIT_FUNCTIONS[functionName] ?? 'encode';
  for (const [prefix, stage] of FILE_STAGES) if (file.startsWith(prefix)) return stage;
  return null;
}

/** A function declared at the top level or two spaces in (a member); group 1 or 2 is its name. */
const DECLARATION =
  /^(?:export )?(?:async )?function\*? ?([\w$]+)|^ {2}(?:static )?(?:async )?\*?(#?[\w$]+)(?:<[^>]*>)?\(/;
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return']);

/**
 * The name of the function declared nearest above 0-based line `line` of `source` at the top
 * level or as a class's or object's member (two spaces in): what an anonymous callback of a
 * formatted TypeScript file belongs to. Null when none is declared above it.
 *
 * @example
 * ```ts
 * enclosingFunction('class A {\n  #merge(): void {\n    list.forEach(() => 1);\n', 2); // '#merge'
 * ```
 */
export function enclosingFunction(source: string, line: number): string | null {
  const lines = source.split('\n');
  for (let i = Math.min(line, lines.length - 1); i >= 0; i--) {
    const text = lines[i] ?? '';
    // A call statement two spaces in (`  log(x);`) is not a declaration.
    if (text.endsWith(';')) continue;
    const match = DECLARATION.exec(text);
    const name = match?.[1] ?? match?.[2];
    if (name !== undefined && !KEYWORDS.has(name)) return name;
  }
  return null;
}

/** The window of a profile to split, and where the repository is. */
export interface SplitOptions {
  /** Samples from this time (µs of the profile's clock)… */
  readonly fromUs: number;
  /** …to this one. */
  readonly toUs: number;
  /** The repository's root directory: frames are named by their path from it. */
  readonly root: string;
}

/** What {@link splitProfile} found. */
export interface ProfileSplit {
  /** Samples per stage, in the window. */
  readonly samples: ReadonlyMap<Stage, number>;
  /** Samples in the window, every stage. */
  readonly total: number;
  /** Microseconds the window's samples cover (the sum of their time deltas). */
  readonly sampledUs: number;
  /** Of the `other` stage's samples, how many each leaf frame (`function file`) took. */
  readonly otherLeaves: ReadonlyMap<string, number>;
}

/** The stage of each node of a profile's call tree, and the files its frames are in. */
export interface StageResolver {
  /** The stage of the node `id` (see {@link frameStage}; a node naming none takes its caller's). */
  readonly stageOf: (id: number) => Stage;
  /** A frame's URL as a path from the repository's root (or the URL, outside it). */
  readonly fileOf: (url: string) => string;
}

/**
 * Resolves the stages of the call tree of `nodes` (a CPU profile's, or an allocation profile's
 * flattened), naming files from the repository at `root`.
 *
 * @example
 * ```ts
 * stageResolver(profile.nodes, process.cwd()).stageOf(42); // 'fold'
 * ```
 */
export function stageResolver(nodes: readonly ProfileNode[], root: string): StageResolver {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of nodes) {
    for (const child of node.children ?? []) parents.set(child, node.id);
  }
  const sources = new Map<string, string | null>();
  const source = (file: string): string | null => {
    if (!sources.has(file)) {
      try {
        sources.set(file, readFileSync(`${root}/${file}`, 'utf8'));
      } catch {
        sources.set(file, null);
      }
    }
    return sources.get(file) ?? null;
  };
  const prefix = `${root.replace(/\/$/, '')}/`;
  const fileOf = (url: string): string => {
    const path = url.startsWith('file://') ? fileURLToPath(url) : url;
    // node_modules may be a link elsewhere: name its files from node_modules on.
    const modules = path.lastIndexOf('/node_modules/');
    if (modules !== -1) return path.slice(modules + 1);
    return path.startsWith(prefix) ? path.slice(prefix.length) : path;
  };
  const stageOfNode = new Map<number, Stage>();
  const stageOf = (id: number): Stage => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    let stage: Stage = 'other';
    if (node !== undefined) {
      const file = fileOf(node.callFrame.url);
      let name = node.callFrame.functionName;
      if (name === '' && file.endsWith('.ts') && !file.startsWith('node_modules/')) {
        const text = source(file);
        name = text === null ? '' : enclosingFunction(text, node.callFrame.lineNumber) ?? '';
      }
      const parent = parents.get(id);
      stage = frameStage(file, name) ?? (parent === undefined ? 'other' : stageOf(parent));
    }
    stageOfNode.set(id, stage);
    return stage;
  };
  return { stageOf, fileOf };
}

/**
 * Splits the samples of `profile` taken between `fromUs` and `toUs` by stage.
 *
 * @example
 * ```ts
 * const { samples, total } = splitProfile(profile, { fromUs, toUs, root: process.cwd() });
 * ```
 */
export function splitProfile(profile: CpuProfile, options: SplitOptions): ProfileSplit {
  const { stageOf, fileOf } = stageResolver(profile.nodes, options.root);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const samples = new Map<Stage, number>(STAGES.map((stage) => [stage, 0]));
  const otherLeaves = new Map<string, number>();
  let total = 0;
  let sampledUs = 0;
  let time = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time < options.fromUs || time > options.toUs) return;
    const stage = stageOf(id);
    samples.set(stage, (samples.get(stage) ?? 0) + 1);
    total += 1;
    sampledUs += delta;
    if (stage === 'other') {
      const frame = byId.get(id)?.callFrame;
      const leaf = frame === undefined
        ? '?'
        : `${frame.functionName || '(anonymous)'} ${fileOf(frame.url)}`.trim();
      otherLeaves.set(leaf, (otherLeaves.get(leaf) ?? 0) + 1);
    }
  });
  return { samples, total, sampledUs, otherLeaves };
}
