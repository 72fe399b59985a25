import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LONGEST_FIRST } from './sequencer.ts';
import { FAULT_FILES, testTiers } from './tiers.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('testTiers', () => {
  let root = '';

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A repository of `files` (path → text) in a temporary directory. */
  function repository(files: Readonly<Record<string, string>>): string {
    root = mkdtempSync(join(tmpdir(), 'tiers-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('puts a file that reaches the services module through helpers in services', () => {
    const tiers = testTiers(repository({
      'test/support/services.ts': 'export const x = 1;',
      'test/rollup/helper.ts': "import { x } from '../support/services.ts';",
      'test/rollup/deep.ts': "export { y } from './nothing.ts';\nimport './helper.ts';",
      'test/rollup/uses.test.ts': "import { z } from './deep.ts';",
      'test/rollup/lazy.test.ts': "const m = await import('../support/services.ts');",
      'test/rollup/plain.test.ts': "import { a } from '../../src/a.ts';",
      'test/image/roles.test.ts': "import { x } from '../support/services.ts';",
    }));
    expect(tiers).toEqual({
      unit: ['test/rollup/plain.test.ts'],
      services: ['test/rollup/lazy.test.ts', 'test/rollup/uses.test.ts'],
      faults: [],
    });
  });

  it('puts the listed fault scenarios in faults, whatever they import', () => {
    const tiers = testTiers(repository({
      'test/support/services.ts': '',
      'test/consumers/churn.test.ts': "import '../support/services.ts';",
      'test/tools/soak.test.ts': '',
    }));
    expect(tiers.faults).toEqual(['test/consumers/churn.test.ts', 'test/tools/soak.test.ts']);
    expect([...tiers.unit, ...tiers.services]).toEqual([]);
  });

  it('places each of the repository test files in exactly one tier', () => {
    const tiers = testTiers(ROOT);
    const all = [...tiers.unit, ...tiers.services, ...tiers.faults];
    expect(new Set(all).size).toBe(all.length);
    expect(tiers.unit).toContain('test/config.test.ts');
    expect(tiers.services).toContain('test/store/redis.test.ts');
  });

  it('lists only fault scenarios that exist', () => {
    expect(testTiers(ROOT).faults).toEqual([...FAULT_FILES].sort());
  });
});

describe('LongestFirstSequencer', () => {
  it('lists files that are there, each once, each of a tier that runs files side by side', () => {
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
    for (const path of LONGEST_FIRST) expect(existsSync(join(ROOT, path)), path).toBe(true);
    const tiers = testTiers(ROOT);
    for (const path of LONGEST_FIRST) {
      expect(
        tiers.faults.includes(path) || tiers.unit.includes(path),
        `${path} is in a tier that runs files side by side`,
      ).toBe(true);
    }
  });
});
