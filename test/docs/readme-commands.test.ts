/**
 * The README is the first screen a person who clones the repository reads, and the manual lives
 * in docs/: the README stays short (at most 150 lines, BENCHMARKS.md at most 400), every npm
 * command the documents name is one that runs (a script of package.json, or one of npm's own
 * commands), and every environment variable the README names as a setting is one that some
 * source reads.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, trackedTextFiles } from './tracked-files.ts';

const README = 'README.md';
const BENCHMARKS = 'BENCHMARKS.md';

/** npm's own commands that run no script of package.json (`npm ci`, `npm install`, …). */
export const NPM_BUILT_INS: ReadonlySet<string> = new Set([
  'access',
  'audit',
  'bin',
  'cache',
  'ci',
  'config',
  'dedupe',
  'doctor',
  'exec',
  'explain',
  'fund',
  'help',
  'i',
  'init',
  'install',
  'link',
  'ls',
  'outdated',
  'pack',
  'prune',
  'publish',
  'rebuild',
  'root',
  'uninstall',
  'update',
  'version',
  'view',
  'why',
  'x',
]);

/** npm's commands that run the package.json script of the same name. */
const SCRIPT_COMMANDS: ReadonlySet<string> = new Set(['test', 'start', 'stop', 'restart']);

/** The lines of a text, as an editor counts them (a final newline ends the last line). */
export function lineCount(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}

/**
 * The code of a Markdown text: the bodies of its fenced blocks and its inline code spans (which
 * deno fmt may wrap over lines within a paragraph).
 */
export function codeOf(text: string): string[] {
  const code: string[] = [];
  const prose = text.replace(/^```[^\n]*\n([\s\S]*?)^```$/gm, (_, body: string) => {
    code.push(body);
    return '';
  });
  for (const match of prose.matchAll(/`((?:[^`\n]|\n(?![ \t]*\n))+)`/g)) code.push(match[1] ?? '');
  return code;
}

/** A script name as written, without the punctuation of the sentence around it. */
function scriptName(raw: string): string {
  return raw.replace(/[.:,;]+$/, '');
}

/**
 * The npm commands a Markdown text names, as `run <script>` or `<command>`: `npm run X` wherever
 * it is written (flags such as `--silent` before the script skipped, a line break allowed), and
 * `npm X` only in code, where `npm` is a command rather than the name of the tool or its
 * registry.
 */
export function npmCommands(text: string): string[] {
  const commands: string[] = [];
  for (const match of text.matchAll(/\bnpm\s+run\s+(?:--?[\w-]+\s+)*([A-Za-z][\w:.-]*)/g)) {
    commands.push(`run ${scriptName(match[1] ?? '')}`);
  }
  for (const code of codeOf(text)) {
    for (const match of code.matchAll(/(?<![\w-])npm\s+(?!run\b)([A-Za-z][\w:-]*)/g)) {
      commands.push(scriptName(match[1] ?? ''));
    }
  }
  return commands;
}

/** Whether an npm command runs: a script that package.json has, or one of npm's own commands. */
export function runs(command: string, scripts: ReadonlySet<string>): boolean {
  if (command.startsWith('run ')) return scripts.has(command.slice('run '.length));
  if (SCRIPT_COMMANDS.has(command)) return scripts.has(command);
  return NPM_BUILT_INS.has(command);
}

/**
 * The environment variables a Markdown text names as settings, in code spans: every
 * `UPPER_CASE` name with an underscore (`KAFKA_BROKERS`, `REDIS_URL=…`, `REQUIRE_SERVICES=1 npm
 * test`), and a one-word name only where it is set (`STORE=redis`, `DEMO=1`), so that `SIGTERM`
 * or a header name is not taken for one. Patterns such as `SECURE_*` or `<NAME>_FILE` name no
 * one variable and are left out.
 */
export function settingsNamed(text: string): string[] {
  const names = new Set<string>();
  for (const code of codeOf(text)) {
    for (const match of code.matchAll(/(?<![\w<>*-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w*>-])/g)) {
      names.add(match[1] ?? '');
    }
    for (const match of code.matchAll(/(?<![\w<>*-])([A-Z][A-Z0-9]*)=/g)) {
      names.add(match[1] ?? '');
    }
  }
  return [...names].sort();
}

/** The text of the sources that read settings: src/, tools/, test/support/ and .ci/run. */
function settingSources(): string {
  return trackedTextFiles()
    .filter((path) => /^(src|tools|test\/support)\/.*\.(ts|sh)$/.test(path) || path === '.ci/run')
    .map((path) => readFileSync(new URL(path, ROOT), 'utf8'))
    .join('\n');
}

function read(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

describe('the README and the documents it sends to', () => {
  const scripts = new Set(
    Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts),
  );
  const documents = [
    README,
    BENCHMARKS,
    ...trackedTextFiles().filter((path) => /^docs\/[^/]+\.md$/.test(path)),
  ];

  it('the README is at most 150 lines', () => {
    expect(lineCount(read(README))).toBeLessThanOrEqual(150);
  });

  it('BENCHMARKS.md is at most 400 lines', () => {
    expect(lineCount(read(BENCHMARKS))).toBeLessThanOrEqual(400);
  });

  it('name only npm commands that run', () => {
    const missing = documents.flatMap((path) =>
      npmCommands(read(path))
        .filter((command) => !runs(command, scripts))
        .map((command) => `${path}: npm ${command}`)
    );
    expect([...new Set(missing)]).toEqual([]);
  });

  it('the README names only settings some source reads', () => {
    const sources = settingSources();
    const unread = settingsNamed(read(README)).filter((name) =>
      !new RegExp(`(?<![A-Z0-9_])${name}(?![A-Z0-9_])`).test(sources)
    );
    expect(unread).toEqual([]);
  });

  it('finds commands and settings in the forms they are written in', () => {
    const text = [
      'Run `npm install && npm start -- --demo`, then `npm run',
      '  services:up -- --secure` and `npm run --silent check:layers`; see npm run soak.',
      'The npm registry brings Node; every `npm run …` runs on it.',
      '```sh',
      'npm ci --no-audit',
      'REQUIRE_SERVICES=1 npm test',
      '```',
      '`STORE=redis`, `KAFKA_BROKERS`, `SIGTERM`, `SECURE_*`, `<NAME>_FILE`, `KAFKA_TLS*`,',
      '`X-API-KEY`, `REDIS_USERNAME[_FILE]`.',
    ].join('\n');
    expect(npmCommands(text)).toEqual([
      'run services:up',
      'run check:layers',
      'run soak',
      'ci',
      'test',
      'install',
      'start',
    ]);
    expect(settingsNamed(text)).toEqual([
      'KAFKA_BROKERS',
      'REDIS_USERNAME',
      'REQUIRE_SERVICES',
      'STORE',
    ]);
    const known = new Set(['test', 'start', 'services:up']);
    expect(runs('run services:up', known)).toBe(true);
    expect(runs('run services:upp', known)).toBe(false);
    expect(runs('test', known)).toBe(true);
    expect(runs('stop', known)).toBe(false);
    expect(runs('ci', known)).toBe(true);
    expect(runs('scripts', known)).toBe(false);
    expect(lineCount('a\nb\n')).toBe(2);
  });
});
