/**
 * The consumer role's heap flags have one home (service/heap-flags.ts): every launcher of the
 * role says the same (`npm run consumers`, the consumers container of docker-compose.yml), and
 * docs/OPERATIONS.md states the same bound.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import {
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
