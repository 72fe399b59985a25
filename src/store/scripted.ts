/**
 * What a Redis-backed store (TCP or REST) does through the Lua scripts of {@link ./scripts.ts}:
 * project commits, the offset compare-and-set, sorted-set updates and the multi-key reads. An
 * adapter gives it a way to run a script, and says whether keys of different hash slots must go
 * in different calls (a Redis Cluster).
 *
 * @module
 */
import type {
  CommitResult,
  HashRead,
  PartRef,
  ProjectCommit,
  SlottedPart,
  SortedSetWrite,
  StoredReach,
} from './port.ts';
import { parseReach, reachField } from './reach.ts';
import { groupByHashTag } from './hash-tag.ts';
import type { LuaScript } from './lua-script.ts';
import {
  ADVANCE_OFFSET_SCRIPT,
  advanceOffsetCall,
  bucketParts,
  COMMIT_PROJECT_SCRIPT,
  commitProjectCall,
  commitResult,
  fieldValue,
  READ_HASHES_SCRIPT,
  READ_PARTS_SCRIPT,
  readHashesCall,
  readPartsCall,
  type ScriptCall,
  slottedParts,
  UPDATE_SET_SCRIPT,
  updateSetCall,
} from './scripts.ts';

/** Keys per read script call, so one huge read does not block Redis for long. */
const READ_CHUNK = 512;

/** Runs one script call (loading the script where it is not known yet). */
export type ScriptRunner = (script: LuaScript, call: ScriptCall) => Promise<unknown>;

/** The script-backed part of a {@link RollupStore} on Redis. */
export class ScriptedOperations {
  readonly #run: ScriptRunner;
  readonly #clustered: boolean;

  constructor(run: ScriptRunner, options: { readonly clustered: boolean }) {
    this.#run = run;
    this.#clustered = options.clustered;
  }

  async commitProject(commit: ProjectCommit): Promise<CommitResult> {
    const call = commitProjectCall(commit, !this.#clustered);
    return commitResult(await this.#run(COMMIT_PROJECT_SCRIPT, call));
  }

  readWatermarks(keys: readonly string[], stream: string): Promise<(number | null)[]> {
    return this.#readEach(
      keys,
      READ_PARTS_SCRIPT,
      (group) => readPartsCall(group, stream),
      (value) => {
        const text = fieldValue(value);
        return text === null ? null : Number(text);
      },
    );
  }

  readReaches(keys: readonly string[], stream: string): Promise<(StoredReach | null)[]> {
    return this.#readEach(
      keys,
      READ_PARTS_SCRIPT,
      (group) => readPartsCall(group, reachField(stream)),
      (value) => parseReach(fieldValue(value)),
    );
  }

  readParts(parts: readonly PartRef[], stream: string): Promise<(string | null)[]> {
    return this.#readEach(
      parts.map((part) => part.key),
      READ_PARTS_SCRIPT,
      (group, positions) => readPartsCall(group, stream, positions.map((p) => parts[p]?.slot)),
      fieldValue,
    );
  }

  readBuckets(keys: readonly string[]): Promise<string[][]> {
    return this.#readEach(keys, READ_HASHES_SCRIPT, (group) => readHashesCall(group), bucketParts);
  }

  readSlots(reads: readonly HashRead[]): Promise<SlottedPart[][]> {
    return this.#readEach(
      reads.map((read) => read.key),
      READ_HASHES_SCRIPT,
      (group, positions) => readHashesCall(group, positions.map((p) => reads[p]?.headBytes)),
      slottedParts,
    );
  }

  async advanceOffset(key: string, expected: number | null, next: number): Promise<boolean> {
    const reply = await this.#run(ADVANCE_OFFSET_SCRIPT, advanceOffsetCall(key, expected, next));
    return Number(reply) === 1;
  }

  async updateSortedSet(write: SortedSetWrite): Promise<void> {
    await this.#run(UPDATE_SET_SCRIPT, updateSetCall(write));
  }

  /**
   * Reads `keys` with a read script, in calls of at most {@link READ_CHUNK} keys (of one hash
   * tag, on a Cluster) sent at once, each the call `callOf` makes of its keys and their positions
   * in `keys`, and puts each key's value back in its place.
   */
  async #readEach<T>(
    keys: readonly string[],
    script: LuaScript,
    callOf: (group: string[], positions: readonly number[]) => ScriptCall,
    read: (value: unknown) => T,
  ): Promise<T[]> {
    const out = new Array<T>(keys.length);
    const groups = this.#clustered ? groupByHashTag(keys) : [keys.map((_, i) => i)];
    const calls: Promise<void>[] = [];
    for (const group of groups) {
      for (let i = 0; i < group.length; i += READ_CHUNK) {
        const positions = group.slice(i, i + READ_CHUNK);
        const call = callOf(positions.map((p) => keys[p] as string), positions);
        calls.push(
          this.#run(script, call).then((reply) => {
            const values = Array.isArray(reply) ? reply : [];
            positions.forEach((position, j) => {
              out[position] = read(values[j]);
            });
          }),
        );
      }
    }
    await Promise.all(calls);
    return out;
  }
}
