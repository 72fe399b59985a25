/**
 * A tool's command line (tools/tool-args.ts): `--help` prints the tool's own module comment and
 * exits 0; a flag it refuses is one line on standard error and exit code 2, never a stack trace.
 * The tools are run as `npm run` starts them, as processes.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { usageOf } from '../../tools/tool-args.ts';

/** Runs `node <script> ...args` from the repository's root. */
function run(script: string, args: readonly string[]) {
  const result = spawnSync(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', script, ...args],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('usageOf', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tool-args-'));

  test("a module's first doc comment, without its stars and its @module tag", () => {
    const path = join(dir, 'tool.ts');
    writeFileSync(
      path,
      '/**\n * `npm run x -- [--n 3]`: does x.\n *\n *   indented stays\n *\n * @module\n */\n' +
        "import x from 'y';\n/** Not this one. */\nconst n = 3;\n",
    );
    expect(usageOf(path)).toBe('`npm run x -- [--n 3]`: does x.\n\n  indented stays\n');
  });

  test('a module without one says so', () => {
    const path = join(dir, 'bare.ts');
    writeFileSync(path, 'const n = 3;\n');
    expect(usageOf(path)).toBe('bare.ts: no usage written\n');
  });
});

describe('a tool started with --help or a bad flag', () => {
  test('--help and -h print the usage and exit 0, whatever else is given', () => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = run('tools/bench/consumer.ts', ['--events', '5', flag]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toBe(usageOf('tools/bench/consumer.ts'));
      expect(stdout).toMatch(/^The cost budget of one consumer \(`npm run bench:consumer -- /);
    }
  });

  test('a flag the tool does not take: one line, exit 2', () => {
    const { code, stdout, stderr } = run('tools/soak.ts', ['--minutes', '1', '--bogus']);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(/^soak\.ts: Unknown option '--bogus'.*; --help lists its flags\n$/);
  });

  test('a flag without its value, or with a value it refuses: one line, exit 2', () => {
    const missing = run('tools/bench/reads.ts', ['--endpoint']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "reads.ts: Option '--endpoint <value>' argument missing; --help lists its flags\n",
    );
    // parseArgs explains this one over three lines; its first is enough.
    const negative = run('tools/bench/consumer.ts', ['--events', '-5']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toBe(
      "consumer.ts: Option '--events' argument is ambiguous; --help lists its flags\n",
    );
    const zero = run('tools/bench/consumer.ts', ['--events', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe(
      'consumer.ts: --events must be a positive integer: got "0"; --help lists its flags\n',
    );
  });

  test('the API benchmark, whose flags are read by hand, answers the same way', () => {
    const help = run('tools/bench/api.ts', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^HTTP API benchmark: /);
    const bad = run('tools/bench/api.ts', ['--seconds', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^api\.ts: bad argument --seconds many: use --events, .*\n$/);
  });

  test('every tool of an npm script answers --help, by toolArgs or its own usage', () => {
    // These print a usage text of their own on --help, and their own refusals (their tests).
    const ownUsage = ['tools/generate.ts', 'tools/replay.ts', 'tools/services/cli.ts'];
    const scripts = Object.values(
      (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    );
    const tools = [...new Set(scripts.flatMap((line) => line.match(/tools\/[\w/.-]+\.ts/g) ?? []))];
    expect(tools.length).toBeGreaterThan(20);
    const without = tools.filter((tool) =>
      !ownUsage.includes(tool) &&
      !/\b(toolArgs|toolFlags|withoutFlags|helpFirst)\(import\.meta\.url/.test(
        readFileSync(tool, 'utf8'),
      )
    );
    expect(without).toEqual([]);
    for (const tool of ownUsage) {
      const { code, stdout } = run(tool, ['--help']);
      expect({ tool, code, usage: /^usage: /.test(stdout) }).toEqual({
        tool,
        code: 0,
        usage: true,
      });
    }
    // parseArgs itself only where a tool's flags module answers for it.
    const parsers = ['generate-flags.ts', 'replay/flags.ts', 'tool-args.ts'];
    const direct = readdirSync('tools', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !parsers.includes(file))
      .filter((file) => /\bparseArgs\(/.test(readFileSync(join('tools', file), 'utf8')));
    expect(direct).toEqual([]);
  });
});
