/**
 * A Dockerfile read into its instructions (continuation lines joined, comments dropped), for
 * the deployment tests.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/** One instruction: `FROM`, `RUN`, ... and the rest of its line. */
export interface Instruction {
  readonly keyword: string;
  readonly argument: string;
}

/** The instructions of the Dockerfile at `path`, in order. */
export function readDockerfile(path: string): Instruction[] {
  const joined = readFileSync(path, 'utf8').split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const instructions: Instruction[] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (match !== null) {
      instructions.push({ keyword: match[1]!.toUpperCase(), argument: match[2]!.trim() });
    }
  }
  return instructions;
}

/** The instructions of the last stage (from its `FROM` on). */
export function finalStage(instructions: readonly Instruction[]): Instruction[] {
  const from = instructions.findLastIndex((instruction) => instruction.keyword === 'FROM');
  return instructions.slice(from);
}

/** The `ENV` variables of the final stage (`KEY=value` pairs). */
export function dockerfileEnv(instructions: readonly Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, argument } of finalStage(instructions)) {
    if (keyword !== 'ENV') continue;
    for (const pair of argument.split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}
