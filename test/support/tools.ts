/**
 * The programs some suites run themselves, beyond the services they are given: a `redis-server`
 * of their own (faults that kill, pause or roll back a Redis), a JDK (Kafka's own Java client),
 * Maven (its classpath), openssl, promtool (the alert rules), the API fuzzer. A suite names what
 * it needs as it names a service (`describeWithServices(['kafka', 'redis-server'], …)`); where
 * one is missing its suites are skipped behind the run's one banner, which names the program and
 * how to install it, or, with `REQUIRE_SERVICES=1`, the run fails.
 *
 * Nothing here installs anything: .ci/run does, or the person reading the banner.
 *
 * @example
 * ```ts
 * const found = findTools(process.env);
 * found.available['redis-server']; // { path: '/usr/bin/redis-server' } where installed
 * found.missing.promtool; // 'promtool not on PATH: install it with apt-get install -y prometheus'
 * ```
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '../../tools/services/run.ts';

/** The programs a suite can ask for. */
export type ToolName = 'redis-server' | 'jdk' | 'maven' | 'openssl' | 'promtool' | 'fuzzer';

/** Every tool name, in the order they are reported. */
export const TOOL_NAMES: readonly ToolName[] = [
  'redis-server',
  'jdk',
  'maven',
  'openssl',
  'promtool',
  'fuzzer',
];

/** Where a tool was found. */
export interface ToolAddress {
  /** Its main executable. */
  readonly path: string;
}

/** The fuzzer's executable, made by `npm run fuzz:setup` (schemathesis from PyPI). */
export const FUZZER = '.cache/venv/bin/schemathesis';

/** What each tool is: the executables it needs on PATH and how a person installs it. */
const TOOLS: Readonly<
  Record<ToolName, { readonly programs: readonly string[]; readonly install: string }>
> = {
  'redis-server': {
    programs: ['redis-server', 'redis-cli'],
    install: 'apt-get install -y redis-server (macOS: brew install redis)',
  },
  jdk: {
    programs: ['java', 'javac'],
    install: 'apt-get install -y openjdk-17-jdk-headless',
  },
  maven: { programs: ['mvn'], install: 'apt-get install -y maven' },
  openssl: { programs: ['openssl'], install: 'apt-get install -y openssl' },
  promtool: { programs: ['promtool'], install: 'apt-get install -y prometheus' },
  fuzzer: {
    programs: [],
    install: 'npm run fuzz:setup (it needs python3 with venv: apt-get install -y python3-venv)',
  },
};

/** What {@link findTools} found. */
export interface FoundTools {
  readonly available: Partial<Record<ToolName, ToolAddress>>;
  /** Why each missing tool is missing, with its install command. */
  readonly missing: Partial<Record<ToolName, string>>;
}

type Variables = Readonly<Record<string, string | undefined>>;

/** Looks every tool up on `environment`'s PATH (the fuzzer under `root`); never throws. */
export function findTools(environment: Variables, root: string = process.cwd()): FoundTools {
  const available: Partial<Record<ToolName, ToolAddress>> = {};
  const missing: Partial<Record<ToolName, string>> = {};
  const path = environment['PATH'] ?? '';
  for (const name of TOOL_NAMES) {
    const tool = TOOLS[name];
    if (name === 'fuzzer') {
      const fuzzer = join(root, FUZZER);
      if (existsSync(fuzzer)) available[name] = { path: fuzzer };
      else missing[name] = `${FUZZER} is missing: install it with ${tool.install}`;
      continue;
    }
    const found = tool.programs.map((program) => findOnPath(program, path));
    const absent = tool.programs.filter((_, i) => found[i] === undefined);
    const first = found[0];
    if (absent.length === 0 && first !== undefined) available[name] = { path: first };
    else missing[name] = `${absent.join(' and ')} not on PATH: install with ${tool.install}`;
  }
  return { available, missing };
}
