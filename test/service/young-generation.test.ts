/**
 * A role started under a small memory limit without `--max-semi-space-size` says so as it starts:
 * V8 then sizes the young generation from the limit (1 MiB at 512 MiB), and a consumer spends
 * about twice the CPU per event (docs/OPERATIONS.md, "A consumer's memory").
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { API_HEAP_FLAGS, CONSUMER_HEAP_FLAGS } from '../../service/heap-flags.ts';
import {
  type MemoryFacts,
  SMALL_LIMIT_BYTES,
  unsizedYoungGeneration,
  youngGenerationWarning,
} from '../../service/young-generation.ts';

const MIB = 1024 ** 2;
const MACHINE = 24 * 1024 * MIB;

const facts = (
  constrainedBytes: number,
  flags: string | null = 'node service/main.ts --role consumers',
) => ({
  constrainedBytes,
  totalBytes: MACHINE,
  flags,
} satisfies MemoryFacts);

describe('unsizedYoungGeneration', () => {
  test('a limit below 1 GiB without the flag: the role is told its flags', () => {
    expect(unsizedYoungGeneration('consumers', facts(512 * MIB))).toEqual({
      role: 'consumers',
      limitMiB: 512,
      flags: CONSUMER_HEAP_FLAGS,
    });
    expect(unsizedYoungGeneration('api', facts(SMALL_LIMIT_BYTES - 1))?.flags).toEqual(
      API_HEAP_FLAGS,
    );
    expect(unsizedYoungGeneration('all', facts(256 * MIB))?.flags).toEqual([
      '--max-semi-space-size=32',
    ]);
  });

  test.each([
    ['no constraint known', 0],
    ['cgroup v1 "unlimited"', 2 ** 63 - 4096],
    ["a constraint at the machine's memory", MACHINE],
    ['a limit of 1 GiB', SMALL_LIMIT_BYTES],
    ['a limit of 4 GiB', 4 * SMALL_LIMIT_BYTES],
  ])('%s: nothing to say', (_, limit) => {
    expect(unsizedYoungGeneration('consumers', facts(limit))).toBeNull();
  });

  test('on a machine of 512 MiB, a constraint of all of it limits nothing', () => {
    const small = { constrainedBytes: 512 * MIB, totalBytes: 512 * MIB, flags: '' };
    expect(unsizedYoungGeneration('consumers', small)).toBeNull();
    expect(unsizedYoungGeneration('consumers', { ...small, totalBytes: 513 * MIB })).not.toBeNull();
  });

  test.each([
    'node --max-semi-space-size=32 service/main.ts --role consumers',
    'node --max_semi_space_size=8 service/main.ts',
    'deno run --v8-flags=--max-old-space-size=256,--max-semi-space-size=32 service/main.ts',
    'node service/main.ts --max-old-space-size=256 --max-semi-space-size 32',
  ])('the flag given (%s): nothing to say', (flags) => {
    expect(unsizedYoungGeneration('consumers', facts(512 * MIB, flags))).toBeNull();
  });

  test('flags that cannot be known (Deno without the right to read them): nothing to say', () => {
    expect(unsizedYoungGeneration('consumers', { ...facts(512 * MIB), flags: null })).toBeNull();
  });

  test('only the old space sized: still said', () => {
    const said = unsizedYoungGeneration(
      'consumers',
      facts(384 * MIB, 'node --max-old-space-size=256 service/main.ts'),
    );
    expect(said?.limitMiB).toBe(384);
  });

  test('the warning names the limit, the flags and where to read more', () => {
    const said = unsizedYoungGeneration('consumers', facts(512 * MIB));
    if (said === null) throw new Error('expected a warning');
    const warning = youngGenerationWarning(said);
    expect(warning).toContain('512 MiB');
    expect(warning).toContain('--max-old-space-size=256 --max-semi-space-size=32');
    expect(warning).toContain("A consumer's memory");
  });
});

describe('processMemoryFacts', () => {
  /** The facts a child Node process reads of itself, started with `args` and `nodeOptions`. */
  function childFacts(args: readonly string[], nodeOptions: string): MemoryFacts {
    const script = "import { processMemoryFacts } from './service/young-generation.ts';" +
      'console.log(JSON.stringify(processMemoryFacts()));';
    const out = execFileSync(
      process.execPath,
      [...args, '--input-type=module', '--eval', script],
      { env: { ...process.env, NODE_OPTIONS: nodeOptions }, encoding: 'utf8' },
    );
    return JSON.parse(out) as MemoryFacts;
  }

  test('reads the flags of the command line and of NODE_OPTIONS, and the machine', () => {
    const fromArgs = childFacts(['--max-semi-space-size=16'], '');
    expect(fromArgs.flags).toContain('--max-semi-space-size=16');
    const fromOptions = childFacts([], '--max-semi-space-size=8');
    expect(fromOptions.flags).toContain('--max-semi-space-size=8');
    expect(fromOptions.totalBytes).toBeGreaterThan(0);
    expect(fromOptions.constrainedBytes).toBeGreaterThanOrEqual(0);
    // What the child saw, judged: unlimited here, or limited and sized by NODE_OPTIONS.
    expect(unsizedYoungGeneration('consumers', fromOptions)).toBeNull();
  });
});
