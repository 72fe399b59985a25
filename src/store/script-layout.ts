/**
 * Where each argument of a script call sits: the one home of every position. The encoders of
 * {@link ./scripts.ts} lay values out by name through a layout, and the scripts of `lua/` name
 * the positions as Lua constants, which {@link ./lua-script.ts} puts ahead of a script's text
 * when it loads it. An argument moved, added or removed here moves in both at once.
 *
 * A layout is a prefix and an ordered list of names. Its Lua constants are `<PREFIX>_<NAME>`, the
 * position of each name, and `<PREFIX>_WIDTH`, the number of names: counted from 1 for the
 * arguments a call starts with (`ARGV[COMMIT_STREAM]`), from 0 for a record repeated in a list
 * (`ARGV[a + PART_VALUE]`, then `a = a + PART_WIDTH`).
 *
 * @example
 * ```ts
 * const args: string[] = [];
 * OFFSET.push(args, { EXPECTED: '', NEXT: '42' }); // ['', '42']; Lua: ARGV[OFFSET_NEXT]
 * ```
 *
 * @module
 */
import { FORGOTTEN_REACH } from './reach.ts';

/** An ordered list of named arguments, as the encoder writes them and the script reads them. */
export class ArgumentLayout<N extends string> {
  readonly prefix: string;
  readonly names: readonly N[];
  /** The position of the first name: 1 for ARGV or KEYS themselves, 0 for a record's offsets. */
  readonly first: 0 | 1;
  /** Each name's position (as its Lua constant). */
  readonly at: Readonly<Record<N, number>>;

  constructor(prefix: string, names: readonly N[], first: 0 | 1) {
    this.prefix = prefix;
    this.names = names;
    this.first = first;
    this.at = Object.fromEntries(names.map((name, i) => [name, first + i])) as Record<N, number>;
  }

  /** Appends `values` to `args` in this layout's order. */
  push(args: (string | Uint8Array)[], values: Readonly<Record<N, string>>): void {
    for (const name of this.names) args.push(values[name]);
  }

  /** The Lua constants of this layout: each name's position, then the width. */
  constants(): [string, number][] {
    const positions = this.names.map((name): [string, number] => [
      `${this.prefix}_${name}`,
      this.at[name],
    ]);
    return [...positions, [`${this.prefix}_WIDTH`, this.names.length]];
  }
}

/** The arguments a call starts with, at ARGV[1] (or KEYS[1]) on. */
function leading<const N extends string>(prefix: string, names: readonly N[]): ArgumentLayout<N> {
  return new ArgumentLayout(prefix, names, 1);
}

/** A record repeated in a list: offsets from the record's first argument. */
function record<const N extends string>(prefix: string, names: readonly N[]): ArgumentLayout<N> {
  return new ArgumentLayout(prefix, names, 0);
}

/** The keys commit-project.lua starts with; its other keys follow in the order of its ARGV. */
export const COMMIT_KEY = leading('COMMIT_KEY', ['WATERMARK']);

/** The arguments commit-project.lua starts with; its lists of parts and sorted sets follow. */
export const COMMIT = leading('COMMIT', [
  'STREAM',
  'EXPECTED',
  'NEXT',
  'WATERMARK_EXPIRE_AT_MS',
  'RESUME_FENCE',
  'REACH_FIELD',
  'REACH_TEXT',
  'CHANNEL',
]);

/** One part of a commit: its slot ('' = the bucket's own part), its state, its key's expiry. */
export const PART = record('PART', ['SLOT', 'VALUE', 'EXPIRE_AT_MS']);

/**
 * One sorted-set write ('' = none for each of the optional ones), followed by its `MEMBERS`
 * (score, member) pairs, in ZADD's order.
 */
export const SORTED_SET = record('SORTED_SET', [
  'MODE',
  'KEEP_HIGHEST',
  'DROP_BELOW',
  'EXPIRE_AT_MS',
  'MEMBERS',
]);

/** The arguments of advance-offset.lua. */
export const OFFSET = leading('OFFSET', ['EXPECTED', 'NEXT']);

/** The argument read-parts.lua starts with; each key's slot follows, in the order of KEYS. */
export const READ_PART = leading('READ_PART', ['FIELD']);

/** The argument read-hashes.lua starts with; each key's head length follows, in KEYS' order. */
export const READ_HASH = leading('READ_HASH', ['REPLY']);

/**
 * The words the scripts and their encoders or readers share: a commit without a resume fence, why
 * a commit was refused, what a read of whole hashes replies, a forgotten reach.
 */
export const WORDS = {
  /** In place of COMMIT_RESUME_FENCE: no check of the resume offset. */
  NO_FENCE: '-',
  /** A commit refused because the stream's resume offset is not the one expected. */
  REFUSED_RESUME: 'resume',
  /** A commit refused because a new part's hash already holds one of the stream. */
  REFUSED_PART: 'part',
  /** READ_HASH_REPLY: every field's value of each hash. */
  READ_VALUES: 'values',
  /** READ_HASH_REPLY: every field and value of each hash. */
  READ_FIELDS: 'fields',
  FORGOTTEN_REACH,
} as const;

/** Every constant a script may name, by its Lua name. */
export const LUA_CONSTANTS: ReadonlyMap<string, number | string> = new Map<
  string,
  number | string
>([
  ...[COMMIT_KEY, COMMIT, PART, SORTED_SET, OFFSET, READ_PART, READ_HASH].flatMap((layout) =>
    layout.constants()
  ),
  ...Object.entries(WORDS),
]);
