/**
 * Each role's heap flags have one home (service/heap-flags.ts): every launcher of the role says
 * the same (`npm run consumers` and `npm run api`, their containers in docker-compose.yml), and
 * docs/OPERATIONS.md states the same bounds.
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
} from '../../service/heap-flags.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

test('npm run consumers starts node with the heap flags', () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
    .scripts;
  const flags = (scripts['consumers'] ?? '').split(' ').filter((word) => word.startsWith('--max-'));
  expect(flags).toEqual(CONSUMER_HEAP_FLAGS);
});

test("docker-compose.yml's consumers container gets them in NODE_OPTIONS", () => {
  const compose = parse(read('docker-compose.yml')) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
  };
  const consumers = Object.entries(compose.services).filter(([, service]) =>
    service.command?.join(' ') === '--role consumers'
  );
  expect(consumers.length).toBeGreaterThan(0);
  for (const [, service] of consumers) {
    expect(service.environment?.['NODE_OPTIONS']).toBe(CONSUMER_HEAP_FLAGS.join(' '));
  }
});

test('docs/OPERATIONS.md states the same bounds', () => {
  const operations = read('docs/OPERATIONS.md');
  expect(operations).toContain(`--max-old-space-size=${CONSUMER_OLD_SPACE_MIB}`);
  expect(operations).toContain(`--max-semi-space-size=${CONSUMER_SEMI_SPACE_MIB}`);
});

test('npm run api starts node with the API heap flags', () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
    .scripts;
  const flags = (scripts['api'] ?? '').split(' ').filter((word) => word.startsWith('--max-'));
  expect(flags).toEqual(API_HEAP_FLAGS);
});

test("docker-compose.yml's API containers get them in NODE_OPTIONS", () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
  };
  const apis = Object.entries(compose.services).filter(([, service]) =>
    service.command?.join(' ') === '--role api'
  );
  expect(apis.length).toBeGreaterThan(0);
  for (const [, service] of apis) {
    expect(service.environment?.['NODE_OPTIONS']).toBe(API_HEAP_FLAGS.join(' '));
  }
});

test("docs/OPERATIONS.md states the API's bound", () => {
  expect(read('docs/OPERATIONS.md')).toContain(`--max-semi-space-size=${API_SEMI_SPACE_MIB}`);
});
