/**
 * The Lua scripts that give a Redis (TCP or REST, one server or a Cluster) the port's atomic
 * steps, each in its own file of `lua/` with a header naming its KEYS and ARGV, and the calls
 * that encode their arguments by the layouts of {@link ./script-layout.ts}. Every script touches
 * the keys of one key group only, so it runs on a Redis Cluster: the caller groups keys by hash
 * slot.
 *
 * - {@link COMMIT_PROJECT_SCRIPT}: one project's share of a flush, fenced by its watermark.
 * - {@link ADVANCE_OFFSET_SCRIPT}: a compare-and-set of a stream's resume offset.
 * - {@link UPDATE_SET_SCRIPT}: one sorted-set write on its own (Upstash's REST).
 * - {@link READ_PARTS_SCRIPT}: one field of many hashes (a stream's part in each hash's slot, a
 *   watermark, a reach).
 * - {@link READ_HASHES_SCRIPT}: every value, or every field and value, of many hashes.
 *
 * @module
 */
import type {
  CommitResult,
  ProjectCommit,
  SlottedPart,
  SortedSetWrite,
  StateWrite,
} from './port.ts';
import { loadLuaScript } from './lua-script.ts';
import { slotOfField, slotOfFieldBytes } from './part-field.ts';
import { reachField, reachText } from './reach.ts';
import {
  COMMIT,
  COMMIT_KEY,
  OFFSET,
  PART,
  READ_HASH,
  READ_PART,
  SORTED_SET,
  WORDS,
} from './script-layout.ts';

// Static URLs: the Dockerfile's test follows them to the files the image must hold.
export const COMMIT_PROJECT_SCRIPT = loadLuaScript(
  new URL('./lua/commit-project.lua', import.meta.url),
);
export const ADVANCE_OFFSET_SCRIPT = loadLuaScript(
  new URL('./lua/advance-offset.lua', import.meta.url),
);
export const UPDATE_SET_SCRIPT = loadLuaScript(
  new URL('./lua/update-sorted-set.lua', import.meta.url),
);
export const READ_PARTS_SCRIPT = loadLuaScript(
  new URL('./lua/read-parts.lua', import.meta.url),
  { readOnly: true },
);
export const READ_HASHES_SCRIPT = loadLuaScript(
  new URL('./lua/read-hashes.lua', import.meta.url),
  { readOnly: true },
);

/** The KEYS and ARGV of one script call; an argument given as bytes goes as they are. */
export interface ScriptCall {
  readonly keys: string[];
  readonly args: (string | Uint8Array)[];
}

const optional = (value: number | null): string => value === null ? '' : String(value);

function pushSortedSets(call: ScriptCall, sets: readonly SortedSetWrite[]): void {
  call.args.push(String(sets.length));
  for (const set of sets) {
    call.keys.push(set.key);
    SORTED_SET.push(call.args, {
      MODE: set.mode,
      KEEP_HIGHEST: optional(set.keepHighest),
      DROP_BELOW: optional(set.dropBelow),
      EXPIRE_AT_MS: optional(set.expireAtMs),
      MEMBERS: String(set.members.length),
    });
    for (const { score, member } of set.members) call.args.push(String(score), member);
  }
}

/**
 * Each part is written at its offsets, as the script reads it (`ARGV[a + PART_VALUE]`), not
 * through `ArgumentLayout.push`: a record object per part made a commit's encoding ~60% slower
 * (60 ns per part: every layout goes through push's one keyed load). The lua-script test checks
 * every offset.
 */
function pushParts(call: ScriptCall, parts: readonly StateWrite[]): void {
  const { args } = call;
  const { SLOT, VALUE, EXPIRE_AT_MS } = PART.at;
  args.push(String(parts.length));
  // A commit's parts share a few expiries (one per grain and bucket): each is converted once.
  let expiry = Number.NaN;
  let expiryText = '';
  for (const part of parts) {
    call.keys.push(part.key);
    if (part.expireAtMs !== expiry) {
      expiry = part.expireAtMs;
      expiryText = String(expiry);
    }
    const a = args.length;
    args[a + SLOT] = part.slot ?? '';
    args[a + VALUE] = part.value;
    args[a + EXPIRE_AT_MS] = expiryText;
  }
}

/**
 * The call of {@link COMMIT_PROJECT_SCRIPT} for one project commit; `fenced`: with the check of
 * the stream's resume offset (only where every key is on one node).
 */
export function commitProjectCall(commit: ProjectCommit, fenced: boolean): ScriptCall {
  const { watermark, resume } = commit;
  const fence = fenced && resume !== undefined;
  const call: ScriptCall = { keys: [], args: [] };
  COMMIT_KEY.push(call.keys, { WATERMARK: watermark.key });
  COMMIT.push(call.args, {
    STREAM: commit.stream,
    EXPECTED: optional(watermark.expected),
    NEXT: String(watermark.next),
    WATERMARK_EXPIRE_AT_MS: String(watermark.expireAtMs),
    RESUME_FENCE: fence ? optional(resume.expected) : WORDS.NO_FENCE,
    REACH_FIELD: reachField(commit.stream),
    REACH_TEXT: watermark.reachUs === undefined ? '' : reachText(watermark.next, watermark.reachUs),
    CHANNEL: commit.changes ?? '',
  });
  pushParts(call, commit.newParts ?? []);
  pushParts(call, commit.parts);
  pushSortedSets(call, commit.sortedSets);
  if (fence) call.keys.push(resume.key);
  return call;
}

/** The call of {@link ADVANCE_OFFSET_SCRIPT}: from `expected` (null: none stored) to `next`. */
export function advanceOffsetCall(key: string, expected: number | null, next: number): ScriptCall {
  const call: ScriptCall = { keys: [key], args: [] };
  OFFSET.push(call.args, { EXPECTED: optional(expected), NEXT: String(next) });
  return call;
}

/** The call of {@link UPDATE_SET_SCRIPT} for one sorted-set write. */
export function updateSetCall(write: SortedSetWrite): ScriptCall {
  const call: ScriptCall = { keys: [], args: [] };
  pushSortedSets(call, [write]);
  return call;
}

/**
 * The call of {@link READ_PARTS_SCRIPT} that reads `field` of each of `keys`: in the slot of the
 * same position of `slots` (undefined, or no `slots`: the field itself).
 */
export function readPartsCall(
  keys: string[],
  field: string,
  slots?: readonly (string | undefined)[],
): ScriptCall {
  const call: ScriptCall = { keys, args: [] };
  READ_PART.push(call.args, { FIELD: field });
  for (let i = 0; i < keys.length; i++) call.args.push(slots?.[i] ?? '');
  return call;
}

/**
 * The call of {@link READ_HASHES_SCRIPT} that reads each of `keys` whole: its values, or with
 * `heads` its fields and values, each value cut to the head of the same position (undefined:
 * whole).
 */
export function readHashesCall(
  keys: string[],
  heads?: readonly (number | undefined)[],
): ScriptCall {
  const call: ScriptCall = { keys, args: [] };
  READ_HASH.push(call.args, { REPLY: heads === undefined ? WORDS.READ_VALUES : WORDS.READ_FIELDS });
  for (const head of heads ?? []) call.args.push(head === undefined ? '' : String(head));
  return call;
}

/** Reads the reply of {@link COMMIT_PROJECT_SCRIPT}. */
export function commitResult(reply: unknown): CommitResult {
  if (!Array.isArray(reply)) throw new Error(`unexpected commit reply: ${String(reply)}`);
  if (Number(reply[0]) === 1) return { outcome: 'applied' };
  if (reply[2] === WORDS.REFUSED_PART) {
    return { outcome: 'part-found', partFound: String(reply[1]) };
  }
  const value = String(reply[1] ?? '');
  const stored = value === '' ? null : Number(value);
  return reply[2] === WORDS.REFUSED_RESUME
    ? { outcome: 'resume-moved', resumeStored: stored }
    : { outcome: 'watermark-moved', stored };
}

/** Reads one value of a {@link READ_PARTS_SCRIPT} reply (nil arrives as null or false). */
export function fieldValue(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

const UTF8 = new TextEncoder();

/**
 * A part of a reply as bytes: as they arrive where the store asks for bytes (TCP), encoded where
 * its protocol gives text (the REST API's JSON); null for anything else (nil).
 */
export function partBytes(value: unknown): Uint8Array | null {
  if (value instanceof Uint8Array) return value;
  return typeof value === 'string' ? UTF8.encode(value) : null;
}

/** Reads one hash of a {@link READ_HASHES_SCRIPT} reply with fields: its parts by slot. */
export function slottedParts(value: unknown): SlottedPart[] {
  if (!Array.isArray(value)) return [];
  const parts: SlottedPart[] = [];
  for (let i = 0; i + 1 < value.length; i += 2) {
    const field: unknown = value[i];
    const part = partBytes(value[i + 1]);
    if (part === null) continue;
    if (field instanceof Uint8Array) parts.push({ slot: slotOfFieldBytes(field), part });
    else if (typeof field === 'string') parts.push({ slot: slotOfField(field), part });
  }
  return parts;
}

/** Reads one hash of a {@link READ_HASHES_SCRIPT} reply without fields: its parts. */
export function bucketParts(value: unknown): Uint8Array[] {
  if (!Array.isArray(value)) return [];
  const parts: Uint8Array[] = [];
  for (const item of value) {
    const part = partBytes(item);
    if (part !== null) parts.push(part);
  }
  return parts;
}
