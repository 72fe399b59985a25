/**
 * A role started under a small memory limit without `--max-semi-space-size` says so as it starts:
 * V8 then sizes the young generation from the limit (1 MiB at 512 MiB), and a consumer spends 1.2
 * to 1.6 times the CPU per event it spends with its flags (docs/OPERATIONS.md, "A consumer's
 * memory").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
      raiseToMiB: null,
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
    ['cgroup v1 "unlimited" (Deno)', 2 ** 63 - 4096],
    ['no limit (Node: UINT64_MAX)', 2 ** 64 - 1],
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

  test('a flag that only starts like it does not count', () => {
    const said = facts(512 * MIB, 'node --max-semi-space-size-foo=1 service/main.ts');
    expect(unsizedYoungGeneration('consumers', said)).not.toBeNull();
  });

  test('below the 512 MiB its flags were measured in, a role with consumers is told to raise it', () => {
    expect(unsizedYoungGeneration('consumers', facts(384 * MIB))?.raiseToMiB).toBe(512);
    expect(unsizedYoungGeneration('all', facts(511 * MIB))?.raiseToMiB).toBe(512);
    expect(unsizedYoungGeneration('api', facts(256 * MIB))?.raiseToMiB).toBeNull();
    const said = unsizedYoungGeneration('consumers', facts(384 * MIB));
    if (said === null) throw new Error('expected a warning');
    expect(youngGenerationWarning(said)).toContain('give it a limit of at least 512 MiB');
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
    expect(warning).not.toContain('give it a limit');
    expect(warning).toContain('--max-old-space-size=256 --max-semi-space-size=32');
    expect(warning).toContain("A consumer's memory");
  });
});

describe('processMemoryFacts', () => {
  const SCRIPT = "import { processMemoryFacts } from './service/young-generation.ts';" +
    'console.log(JSON.stringify(processMemoryFacts()));';

  /** The facts a child Node process reads of itself, started with `args` and `nodeOptions`. */
  function nodeFacts(args: readonly string[], nodeOptions: string): MemoryFacts {
    const out = execFileSync(
      process.execPath,
      [...args, '--input-type=module', '--eval', SCRIPT, 'an-argument-of-the-command-line'],
      { env: { ...process.env, NODE_OPTIONS: nodeOptions }, encoding: 'utf8' },
    );
    return JSON.parse(out) as MemoryFacts;
  }

  test('on Node: the whole command line (not only execArgv), NODE_OPTIONS, the machine', () => {
    const fromArgs = nodeFacts(['--max-semi-space-size=16'], '');
    expect(fromArgs.flags).toContain('--max-semi-space-size=16');
    expect(fromArgs.flags).toContain('an-argument-of-the-command-line');
    const fromOptions = nodeFacts([], '--max-semi-space-size=8');
    expect(fromOptions.flags).toContain('--max-semi-space-size=8');
    expect(fromOptions.totalBytes).toBeGreaterThan(0);
    expect(fromOptions.constrainedBytes).toBeGreaterThanOrEqual(0);
  });

  /** The facts a child Deno process reads of itself, with `permissions` and `v8Flags`. */
  function denoFacts(permissions: readonly string[], v8Flags: string): MemoryFacts {
    // `deno run` of a file: `deno eval` would run with every permission.
    const dir = mkdtempSync(join(tmpdir(), 'young-generation-'));
    const file = join(dir, 'facts.ts');
    writeFileSync(file, SCRIPT.replace('./service/', `${resolve('service')}/`));
    try {
      const out = execFileSync(
        resolve('node_modules/deno/deno'),
        ['run', ...permissions, file],
        {
          // Deno refuses an empty DENO_V8_FLAGS.
          env: {
            ...process.env,
            NODE_OPTIONS: '',
            ...(v8Flags === '' ? {} : { DENO_V8_FLAGS: v8Flags }),
          },
          encoding: 'utf8',
        },
      );
      return JSON.parse(out) as MemoryFacts;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('on Deno: unknown without the right to read /proc/self, else with DENO_V8_FLAGS', () => {
    expect(denoFacts(['--allow-read', '--allow-env', '--allow-sys'], '').flags).toBeNull();
    expect(denoFacts(['--allow-all'], '--max-semi-space-size=8').flags).toContain(
      '--max-semi-space-size=8',
    );
  });
});
