/**
 * A tool's command line, as `parseArgs` reads it, with what an operator expects around it:
 * `--help` (or `-h`) prints the tool's usage, its own module comment, and exits 0; a flag it does
 * not take, or one without its value, is told in one line, with the way to the usage, and exits
 * 2 (not a stack trace).
 *
 * @example
 * ```ts
 * const { values } = toolArgs(import.meta.url, { options: { events: { type: 'string' } } });
 * ```
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What a tool prints on `--help`: the first doc comment of the module at `path`, as text. */
export function usageOf(path: string): string {
  const comment = /\/\*\*([\s\S]*?)\*\//.exec(readFileSync(path, 'utf8'))?.[1] ?? '';
  const lines = comment
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .filter((line) => line !== '@module');
  while (lines[0] === '') lines.shift();
  while (lines.at(-1) === '') lines.pop();
  return lines.length === 0 ? `${basename(path)}: no usage written\n` : `${lines.join('\n')}\n`;
}

/** A flag a tool refuses: its message says which flag, what was given and what is allowed. */
export class FlagError extends Error {
  override name = 'FlagError';
}

/** Whether `error` refuses the command line: a {@link FlagError}, or `parseArgs`'s refusal. */
function isFlagError(error: unknown): error is Error {
  if (error instanceof FlagError) return true;
  return error instanceof Error && 'code' in error && typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS_');
}

/** Whether the command line asks for the usage. */
function asksHelp(args: readonly string[]): boolean {
  const { values } = parseArgs({
    args: [...args],
    options: { help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
  });
  return values.help === true;
}

/**
 * Ends the tool this process runs because of a flag: `message` in one line on standard error,
 * exit code 2.
 */
export function refuseFlag(message: string): never {
  // parseArgs explains some refusals over several lines: the first says it.
  const first = (message.split('\n')[0] ?? '').replace(/\.$/, '');
  process.stderr.write(
    `${basename(process.argv[1] ?? 'tool')}: ${first}; --help lists its flags\n`,
  );
  process.exit(2);
}

/**
 * What `read` makes of `args` (this process's command line unless given), for the tool whose
 * module is at `moduleUrl` (its `import.meta.url`): its usage and exit 0 when `args` ask for
 * it, and {@link refuseFlag} for a flag `read` refuses.
 */
export function toolFlags<T>(
  moduleUrl: string,
  read: (args: string[]) => T,
  args: readonly string[] = process.argv.slice(2),
): T {
  if (asksHelp(args)) {
    process.stdout.write(usageOf(fileURLToPath(moduleUrl)));
    process.exit(0);
  }
  try {
    return read([...args]);
  } catch (error) {
    if (isFlagError(error)) refuseFlag(error.message);
    throw error;
  }
}

/** {@link toolFlags} read by `parseArgs` with `config`. */
export function toolArgs<const T extends ParseArgsConfig>(
  moduleUrl: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  return toolFlags(moduleUrl, () => parseArgs(config), config.args);
}

/** A tool that takes no flags: `--help` prints its usage, and any flag is refused. */
export function withoutFlags(moduleUrl: string): void {
  toolArgs(moduleUrl, { options: {} });
}

/** A tool that reads its flags by hand where it uses them: `--help` prints its usage first. */
export function helpFirst(moduleUrl: string): void {
  toolFlags(moduleUrl, () => undefined);
}
