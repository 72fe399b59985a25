import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CallFrame,
  type CpuProfile,
  enclosingFunction,
  frameStage,
  type ProfileNode,
  splitProfile,
} from '../../tools/bench/profile-stages.ts';
import { profileRoot } from './profile-frames.ts';

const { root: ROOT, frame } = profileRoot('profile-stages');

/**
 * A profile of one sample per stack, 1 ms apart from time 1,000 µs; each stack is its frames
 * from the root's child to the leaf.
 */
function profileOf(stacks: readonly (readonly CallFrame[])[]): CpuProfile {
  const nodes: (ProfileNode & { children: number[] })[] = [
    { id: 1, callFrame: frame('', '(root)'), children: [] },
  ];
  const samples = stacks.map((stack) => {
    let parent = nodes[0];
    for (const callFrame of stack) {
      const node = { id: nodes.length + 1, callFrame, children: [] };
      nodes.push(node);
      parent?.children.push(node.id);
      parent = node;
    }
    return parent?.id ?? 1;
  });
  return { nodes, startTime: 0, samples, timeDeltas: samples.map(() => 1_000) };
}

const kafkajs = frame('node_modules/kafkajs/src/consumer/runner.js', 'processEachBatch');
const runner = frame('consumers/runner.ts', 'eachBatch');
const processor = frame('consumers/partition-processor.ts', '#process');
const writerFlush = frame('src/rollup/partition-writer.ts', 'flush');

describe('frameStage', () => {
  it.each(
    [
      ['node_modules/kafkajs/src/protocol/recordBatch/v0/index.js', 'decode', 'kafka'],
      ['src/kafka/codecs/zstd.ts', 'decompress', 'kafka'],
      ['src/events/parse.ts', 'parse', 'parse'],
      ['src/events/derive.ts', 'edgeRequests', 'parse'],
      ['src/events/schema.ts', 'describeSchemaError', 'validate'],
      ['', 'validate10', 'validate'],
      ['src/rollup/fold.ts', 'addEdge', 'fold'],
      ['src/rollup/invocation-stats.ts', 'add', 'fold'],
      ['src/rollup/quantiles.ts', 'merge', 'merge'],
      ['src/rollup/invocation-stats.ts', 'deserialize', 'merge'],
      ['src/rollup/quantiles.ts', 'serializedText', 'encode'],
      ['src/rollup/part-merge.ts', 'merge', 'merge'],
      ['src/rollup/part-merge.ts', 'mergeInto', 'merge'],
      ['src/rollup/project-commit.ts', '#commitProject', 'encode'],
      ['src/rollup/project-commit.ts', '#logsWrite', 'encode'],
      ['src/rollup/project-commit.ts', 'registerHosts', 'writer'],
      ['src/rollup/partition-writer.ts', 'flush', 'writer'],
      ['src/rollup/stream-admission.ts', 'load', 'writer'],
      ['src/store/scripts.ts', 'commitProjectCall', 'encode'],
      ['node_modules/@redis/client/dist/lib/client/index.js', 'sendCommand', 'redis'],
      ['src/store/redis.ts', 'runScript', 'redis'],
      ['', '(garbage collector)', 'gc'],
      ['', '(idle)', 'idle'],
      ['', '(program)', 'other'],
      ['consumers/metrics.ts', 'observe', 'other'],
    ] as const,
  )('%s %s is %s', (file, name, stage) => {
    expect(frameStage(file, name)).toBe(stage);
  });

  it.each([
    ['node:net', 'writeGeneric'],
    ['', 'JSON.parse'],
    ['src/rollup/quantiles.ts', 'addToBins'],
    ['src/rollup/keys.ts', 'partRef'],
    ['src/time/timestamp.ts', 'parseTimestamp'],
  ])('%s %s names no stage: its caller does', (file, name) => {
    expect(frameStage(file, name)).toBeNull();
  });
});

describe('enclosingFunction', () => {
  const source = [
    'function decode(text: string) {', // 0
    '  log(text);', // 1
    '  return text;', // 2
    '}', // 3
    'export class Writer {', // 4
    '  async #mergeParts(', // 5
    '    delta: Delta,', // 6
    '  ): Promise<void> {', // 7
    '    missing.forEach(([address]) => {', // 8
    '      read(address);', // 9
    '    });', // 10
    '  }', // 11
    '}', // 12
  ].join('\n');

  it('names the member or function declared around a line', () => {
    expect(enclosingFunction(source, 9)).toBe('#mergeParts');
    expect(enclosingFunction(source, 2)).toBe('decode');
  });

  it('takes no call statement for a declaration', () => {
    expect(enclosingFunction(source, 1)).toBe('decode');
  });

  it('is null above every declaration', () => {
    expect(enclosingFunction('const a = 1;\n', 0)).toBeNull();
  });
});

describe('splitProfile', () => {
  it('gives each sample the stage of the first frame from its leaf that names one', () => {
    const profile = profileOf([
      // A kafkajs frame under the processor does not take parse's sample, nor the processor's.
      [kafkajs, runner, processor, frame('src/events/parse.ts', 'parse'), frame('', 'parse')],
      [kafkajs, runner, processor, frame('src/events/parse.ts', 'parse'), frame('', 'validate10')],
      [kafkajs, runner, processor],
      [kafkajs, frame('node_modules/kafkajs/src/protocol/decoder.js', 'readInt32')],
      // The same helper goes to the operation that calls it.
      [
        writerFlush,
        frame('src/rollup/part-merge.ts', 'mergeInto'),
        frame('src/rollup/quantiles.ts', 'merge'),
        frame('src/rollup/quantiles.ts', 'addToBins'),
      ],
      [
        processor,
        frame('src/rollup/fold.ts', 'add'),
        frame('src/rollup/invocation-stats.ts', 'add'),
        frame('src/rollup/quantiles.ts', 'add'),
        frame('src/rollup/quantiles.ts', 'addToBins'),
      ],
      [
        writerFlush,
        frame('src/rollup/part-merge.ts', 'mergeInto'),
        frame('src/rollup/invocation-stats.ts', 'serialize'),
      ],
      [
        writerFlush,
        frame('node_modules/@redis/client/dist/lib/client/index.js', 'sendCommand'),
        frame('node:net', 'writeGeneric'),
      ],
      [frame('', '(garbage collector)')],
      [frame('', '(idle)')],
      [frame('node:internal/timers', 'listOnTimeout')],
    ]);
    const split = splitProfile(profile, { fromUs: 0, toUs: Infinity, root: ROOT });
    expect(Object.fromEntries([...split.samples].filter(([, count]) => count > 0))).toEqual({
      parse: 1,
      validate: 1,
      kafka: 1,
      fold: 1,
      merge: 1,
      encode: 1,
      redis: 1,
      gc: 1,
      idle: 1,
      other: 2,
    });
    expect(split.total).toBe(11);
    expect(split.sampledUs).toBe(11_000);
    expect(split.otherLeaves).toEqual(
      new Map([['#process consumers/partition-processor.ts', 1], [
        'listOnTimeout node:internal/timers',
        1,
      ]]),
    );
  });

  it('names an anonymous function of the repository by the declaration around it', () => {
    mkdirSync(join(ROOT, 'src/rollup'), { recursive: true });
    writeFileSync(
      join(ROOT, 'src/rollup/project-commit.ts'),
      'class C {\n  async registerHosts(d: D) {\n    list.forEach(() => {\n      x();\n',
    );
    const profile = profileOf([
      [frame('', 'runMicrotasks'), frame('src/rollup/project-commit.ts', '', 3)],
    ]);
    const split = splitProfile(profile, { fromUs: 0, toUs: Infinity, root: ROOT });
    // Unnamed, the committer's file would say encode: the name around it says bookkeeping.
    expect(split.samples.get('writer')).toBe(1);
  });

  it('counts only the samples of the window', () => {
    const idle = [frame('', '(idle)')];
    // Samples at 1,000, 2,000, 3,000 and 4,000 µs.
    const profile = profileOf([idle, idle, idle, idle]);
    const split = splitProfile(profile, { fromUs: 1_500, toUs: 3_000, root: ROOT });
    expect(split.total).toBe(2);
    expect(split.sampledUs).toBe(2_000);
  });
});
