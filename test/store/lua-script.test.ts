/**
 * The Lua scripts as files: each loads with its fragments in place and the layout constants it
 * names declared, names no constant that nothing declares (a typo would be a nil position at the
 * first call), documents its KEYS and ARGV, and is encoded by the layout it reads. What the
 * scripts do on a Redis is the store contract's (`redis.test.ts`, `upstash.test.ts`,
 * `redis-cluster.test.ts`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { loadLuaScript } from '../../src/store/lua-script.ts';
import { LUA_CONSTANTS } from '../../src/store/script-layout.ts';
import * as scripts from '../../src/store/scripts.ts';
import type { ProjectCommit } from '../../src/store/port.ts';

const LUA_DIR = new URL('../../src/store/lua/', import.meta.url);

const SCRIPTS = {
  'commit-project.lua': scripts.COMMIT_PROJECT_SCRIPT,
  'advance-offset.lua': scripts.ADVANCE_OFFSET_SCRIPT,
  'update-sorted-set.lua': scripts.UPDATE_SET_SCRIPT,
  'read-parts.lua': scripts.READ_PARTS_SCRIPT,
  'read-hashes.lua': scripts.READ_HASHES_SCRIPT,
};

/** The code of a Lua text: comments and string literals blanked out. */
function codeOf(source: string): string {
  return source.replace(/--\[\[[\s\S]*?\]\]/g, ' ').replace(/--[^\n]*/g, ' ')
    .replace(/'[^'\n]*'|"[^"\n]*"/g, "''");
}

describe('the scripts of src/store/lua/', () => {
  test('every script file is loaded by scripts.ts, and only the read scripts as read-only', () => {
    const files = readdirSync(LUA_DIR).filter((name) => name.endsWith('.lua'));
    expect(files.toSorted()).toEqual(Object.keys(SCRIPTS).toSorted());
    for (const [file, script] of Object.entries(SCRIPTS)) {
      expect(script.name).toBe(file);
      expect(script.readOnly, file).toBe(file.startsWith('read-'));
      expect(script.sha1).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  test.each(Object.entries(SCRIPTS))('%s opens with a header naming its KEYS and ARGV', (file) => {
    const text = readFileSync(new URL(file, LUA_DIR), 'utf8');
    const header = /^--\[\[\n([\s\S]*?)\n\]\]\n/.exec(text)?.[1] ?? '';
    expect(header).toMatch(/^ {2}KEYS$/m);
    expect(header).toMatch(/^ {2}ARGV$/m);
    expect(header).toMatch(/^ {2}Replies/m);
  });

  test.each(Object.entries(SCRIPTS))(
    '%s has its fragments in place and names only declared constants',
    (_, script) => {
      expect(script.source).not.toMatch(/@include/);
      const code = codeOf(script.source);
      const declared = new Set(
        [...code.matchAll(/\blocal ([A-Z][A-Z0-9_]*) =/g)].map((match) => match[1]),
      );
      const named = new Set([...code.matchAll(/\b[A-Z][A-Z0-9_]+\b/g)].map((match) => match[0]));
      for (const name of named) {
        if (name === 'KEYS' || name === 'ARGV') continue;
        expect(declared, `${script.name} names ${name}`).toContain(name);
      }
      // A fragment's functions are defined once, however often it is included.
      for (const fn of code.matchAll(/\blocal function (\w+)/g)) {
        expect(code.split(`local function ${fn[1]}(`).length, fn[1]).toBe(2);
      }
    },
  );

  test('the encoder puts each named value where the Lua constant of its name points', () => {
    const position = (name: string) => {
      const value = LUA_CONSTANTS.get(name);
      if (typeof value !== 'number') throw new Error(`no position ${name}`);
      return value;
    };
    const commit: ProjectCommit = {
      stream: 'logs.edge/3',
      watermark: { key: 'w', expected: 5, next: 9, expireAtMs: 1000, reachUs: 77 },
      resume: { key: 'r', expected: 4 },
      newParts: [{ key: 'n', slot: '17', value: 'fresh', expireAtMs: 2000 }],
      parts: [],
      sortedSets: [
        {
          key: 's',
          mode: 'max',
          keepHighest: 10,
          dropBelow: null,
          expireAtMs: 3000,
          members: [{ score: 1, member: 'm' }],
        },
      ],
    };
    const { keys, args } = scripts.commitProjectCall(commit, true);
    const argv = (at: number) => args[at - 1];
    expect(keys[position('COMMIT_KEY_WATERMARK') - 1]).toBe('w');
    expect(keys.at(-1)).toBe('r');
    expect(argv(position('COMMIT_STREAM'))).toBe('logs.edge/3');
    expect(argv(position('COMMIT_EXPECTED'))).toBe('5');
    expect(argv(position('COMMIT_NEXT'))).toBe('9');
    expect(argv(position('COMMIT_WATERMARK_EXPIRE_AT_MS'))).toBe('1000');
    expect(argv(position('COMMIT_RESUME_FENCE'))).toBe('4');
    expect(argv(position('COMMIT_REACH_FIELD'))).toBe('logs.edge/3 reach');
    expect(argv(position('COMMIT_REACH_TEXT'))).toBe('9 77');
    // The new parts: their count, then one PART record.
    let a = position('COMMIT_WIDTH') + 1;
    expect(argv(a)).toBe('1');
    a += 1;
    expect(argv(a + position('PART_SLOT'))).toBe('17');
    expect(argv(a + position('PART_VALUE'))).toBe('fresh');
    expect(argv(a + position('PART_EXPIRE_AT_MS'))).toBe('2000');
    a += position('PART_WIDTH');
    expect(argv(a)).toBe('0'); // no parts
    expect(argv(a + 1)).toBe('1'); // one sorted set
    a += 2;
    expect(argv(a + position('SORTED_SET_MODE'))).toBe('max');
    expect(argv(a + position('SORTED_SET_KEEP_HIGHEST'))).toBe('10');
    expect(argv(a + position('SORTED_SET_DROP_BELOW'))).toBe('');
    expect(argv(a + position('SORTED_SET_EXPIRE_AT_MS'))).toBe('3000');
    expect(argv(a + position('SORTED_SET_MEMBERS'))).toBe('1');
    a += position('SORTED_SET_WIDTH');
    expect(args.slice(a - 1)).toEqual(['1', 'm']);

    const offset = scripts.advanceOffsetCall('o', null, 12);
    expect(offset.args[position('OFFSET_EXPECTED') - 1]).toBe('');
    expect(offset.args[position('OFFSET_NEXT') - 1]).toBe('12');
    const parts = scripts.readPartsCall(['a', 'b'], 'f', [undefined, '3']);
    expect(parts.args[position('READ_PART_FIELD') - 1]).toBe('f');
    expect(parts.args.slice(position('READ_PART_WIDTH'))).toEqual(['', '3']);
    const hashes = scripts.readHashesCall(['a', 'b'], [undefined, 8]);
    expect(hashes.args[position('READ_HASH_REPLY') - 1]).toBe(LUA_CONSTANTS.get('READ_FIELDS'));
    expect(hashes.args.slice(position('READ_HASH_WIDTH'))).toEqual(['', '8']);
    expect(scripts.readHashesCall(['a']).args).toEqual([LUA_CONSTANTS.get('READ_VALUES')]);
  });
});

describe('loadLuaScript', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lua-script-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return pathToFileURL(join(dir, name));
  };

  test('puts each fragment in once, and the constants it names after its header', () => {
    file('shared.lua', 'local function shared() return PART_WIDTH end\n');
    file('middle.lua', "-- @include 'shared.lua'\nlocal function middle() return 1 end\n");
    const url = file(
      'main.lua',
      "--[[\n  KEYS none\n]]\n-- @include 'shared.lua'\n-- @include 'middle.lua'\n" +
        'return ARGV[OFFSET_NEXT] .. NO_FENCE\n',
    );
    expect(loadLuaScript(url).source).toBe(
      '--[[\n  KEYS none\n]]\n' +
        '-- Positions and words of src/store/script-layout.ts\n' +
        "local PART_WIDTH = 3\nlocal OFFSET_NEXT = 2\nlocal NO_FENCE = '-'\n" +
        'local function shared() return PART_WIDTH end\n' +
        '-- shared.lua: included above\nlocal function middle() return 1 end\n' +
        'return ARGV[OFFSET_NEXT] .. NO_FENCE\n',
    );
  });

  test('a checkout with CRLF line endings includes its fragments too', () => {
    file('crlf-shared.lua', 'local function shared() return 1 end\r\n');
    const url = file(
      'crlf-main.lua',
      "--[[\r\n  KEYS none\r\n]]\r\n-- @include 'crlf-shared.lua'\r\nreturn shared()\r\n",
    );
    const { source } = loadLuaScript(url);
    expect(source).not.toMatch(/@include/);
    expect(source).toContain('local function shared() return 1 end');
  });

  test('a script or fragment that cannot be read stops the load with its path', () => {
    const missing = join(dir, 'missing.lua');
    expect(() => loadLuaScript(pathToFileURL(missing))).toThrow(
      `cannot read the Lua script ${missing} (ENOENT`,
    );
    const url = file('includes-missing.lua', "-- @include 'gone.lua'\nreturn 1\n");
    expect(() => loadLuaScript(url)).toThrow(`cannot read the Lua script ${join(dir, 'gone.lua')}`);
  });
});
