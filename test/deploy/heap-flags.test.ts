/**
 * Each role's heap flags have one home (service/heap-flags.ts): every launcher of the role says
 * the same (`npm run consumers` and `npm run api`, their containers in docker-compose.yml, Deno's
 * `deno task api`), and
 * docs/OPERATIONS.md states the same bounds. Every role sets one more V8 flag on itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import {
  API_HEAP_FLAGS,
  API_SEMI_SPACE_MIB,
  CONSUMER_HEAP_FLAGS,
  CONSUMER_OLD_SPACE_MIB,
  CONSUMER_SEMI_SPACE_MIB,
  RUNTIME_V8_FLAGS,
} from '../../service/heap-flags.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const ROLES = [
  { role: 'consumers', flags: CONSUMER_HEAP_FLAGS },
  { role: 'api', flags: API_HEAP_FLAGS },
] as const;

test.each(ROLES)('npm run $role starts node with its heap flags', ({ role, flags }) => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
    .scripts;
  const words = (scripts[role] ?? '').split(' ');
  expect(words.filter((word) => word.startsWith('--max-'))).toEqual(flags);
});

test.each(ROLES)("docker-compose.yml's $role containers get them in NODE_OPTIONS", ({
  role,
  flags,
}) => {
  // `<<: *anchor` merges (YAML 1.1) are what Compose reads too.
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
  };
  const containers = Object.values(compose.services).filter((service) =>
    service.command?.join(' ') === `--role ${role}`
  );
  expect(containers.length).toBeGreaterThan(0);
  for (const service of containers) {
    expect(service.environment?.['NODE_OPTIONS']).toBe(flags.join(' '));
  }
});

test("docs/OPERATIONS.md states the same bounds, each in its role's section", () => {
  const operations = read('docs/OPERATIONS.md');
  const api = operations.indexOf("## An API replica's memory");
  const consumerSection = operations.slice(operations.indexOf("## A consumer's memory"), api);
  const apiSection = operations.slice(api, operations.indexOf('\n## ', api + 1));
  expect(consumerSection).toContain(`--max-old-space-size=${CONSUMER_OLD_SPACE_MIB}`);
  expect(consumerSection).toContain(`--max-semi-space-size=${CONSUMER_SEMI_SPACE_MIB}`);
  // The API's own: how to give it to a container and to Deno, and its row of bounds.
  const flag = `--max-semi-space-size=${API_SEMI_SPACE_MIB}`;
  expect(apiSection).toContain(`-e NODE_OPTIONS=${flag}\``);
  expect(apiSection).toContain(`\`--v8-flags=${flag}\``);
  expect(apiSection).toMatch(new RegExp(`\\| 2 × ${API_SEMI_SPACE_MIB} MiB +\\| \`${flag}\``));
});

test("deno.json's api task gives Deno the API's heap flags", () => {
  const tasks = (JSON.parse(read('deno.json')) as { tasks: Record<string, string> }).tasks;
  expect((tasks['api'] ?? '').split(' ')).toContain(`--v8-flags=${API_HEAP_FLAGS.join(',')}`);
});

test('every role turns allocation-site pretenuring off itself, as it starts', () => {
  expect(RUNTIME_V8_FLAGS).toEqual(['--no-allocation-site-pretenuring']);
  const main = read('service/main.ts');
  expect(main).toContain('for (const flag of RUNTIME_V8_FLAGS) v8.setFlagsFromString(flag);');
});
