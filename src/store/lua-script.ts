/**
 * Loads a Lua script of `lua/` as Redis runs it: read once (when {@link ./scripts.ts} loads,
 * relative to `import.meta.url`, which Node and Deno resolve alike; Deno runs with
 * `--allow-read`), each `-- @include 'file'` line replaced by the fragment it names (relative to
 * the script, once per script), and the constants of {@link ./script-layout.ts} the script names
 * declared after its header comment. A file that cannot be read stops the service at start with
 * the path it looked for.
 *
 * @example
 * ```ts
 * const script = loadLuaScript(new URL('./lua/advance-offset.lua', import.meta.url));
 * script.sha1; // the name EVALSHA knows it by
 * ```
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LUA_CONSTANTS } from './script-layout.ts';

/** A script as Redis runs it. */
export interface LuaScript {
  /** Its file name, for messages. */
  readonly name: string;
  /** The text sent to Redis: includes resolved, constants declared. */
  readonly source: string;
  /** The hex SHA-1 of {@link source}: the name EVALSHA knows it by. */
  readonly sha1: string;
  /**
   * Whether it only reads: sent as `EVALSHA_RO` (Redis 7), which Redis runs while writes are
   * paused (`CLIENT PAUSE WRITE`, as during a manual failover) and plain `EVALSHA` does not.
   */
  readonly readOnly: boolean;
}

const INCLUDE = /^-- @include '([^']+)'$/gm;
const HEADER_END = /^\]\]\n/m;

/** Reads the script at `url` (a `file:` URL) and makes it ready to run. */
export function loadLuaScript(url: URL, options: { readonly readOnly?: boolean } = {}): LuaScript {
  const text = withIncludes(url, new Set());
  const source = withConstants(text);
  return {
    name: fileURLToPath(url).split(/[\\/]/).pop() ?? url.href,
    source,
    sha1: createHash('sha1').update(source).digest('hex'),
    readOnly: options.readOnly ?? false,
  };
}

function read(url: URL): string {
  try {
    return readFileSync(url, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `cannot read the Lua script ${fileURLToPath(url)} (${reason}): the store runs the scripts ` +
        'of src/store/lua/ on Redis, so the service needs that folder with its sources (an image ' +
        'must copy all of src/) and, on Deno, permission to read it (--allow-read)',
      { cause: error },
    );
  }
}

/** The text at `url` with each fragment it includes in place of its line (`seen`: once each). */
function withIncludes(url: URL, seen: Set<string>): string {
  return read(url).replace(INCLUDE, (_, path: string) => {
    const fragment = new URL(path, url);
    if (seen.has(fragment.href)) return `-- ${path}: included above`;
    seen.add(fragment.href);
    return withIncludes(fragment, seen).trimEnd();
  });
}

/** `text` with the layout constants it names declared after its header comment. */
function withConstants(text: string): string {
  const declarations: string[] = [];
  for (const [name, value] of LUA_CONSTANTS) {
    if (new RegExp(`\\b${name}\\b`).test(text)) {
      declarations.push(`local ${name} = ${typeof value === 'number' ? value : luaString(value)}`);
    }
  }
  const block = `-- Positions and words of src/store/script-layout.ts\n${
    declarations.join('\n')
  }\n`;
  const header = HEADER_END.exec(text);
  if (header === null) return block + text;
  const end = header.index + header[0].length;
  return text.slice(0, end) + block + text.slice(end);
}

function luaString(value: string): string {
  if (!/^[\w ./-]*$/.test(value)) {
    throw new Error(`a Lua constant must be plain text (letters, digits, ' ./-_'): got '${value}'`);
  }
  return `'${value}'`;
}
