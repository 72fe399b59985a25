/**
 * What a Redis-backed store (TCP or REST) does through the Lua scripts of {@link ./scripts.ts}:
 * project commits, the offset compare-and-set, sorted-set updates and the multi-key reads. An
 * adapter gives it a way to run a script, and says whether keys of different hash slots must go
 * in different calls (a Redis Cluster).
 *
 * An adapter that can also run a MULTI/EXEC transaction of plain commands in one round trip (TCP)
 * gives that too, and the reads of hashes (an answer's buckets) go through it: as atomic as the
 * script, for 58 to 67% less Redis CPU per `5min` answer, as Redis no longer copies every field
 * into Lua and back (docs/benchmarks-history.md, "Reads as transactions, issue 52"). A
 * transaction with any error in its replies (a key of the layout before parts, a slot on the
 * move, a command the ACL refuses) or that fails is read again by the script, whose answer or
 * error stands.
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
  partBytes,
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

/**
 * Runs one script call (loading the script where it is not known yet). With `asBytes`, the
 * reply's strings arrive as bytes where the protocol allows (they may still arrive as text).
 */
export type ScriptRunner = (
  script: LuaScript,
  call: ScriptCall,
  asBytes?: boolean,
) => Promise<unknown>;

/**
 * Runs `commands`, each on keys of `firstKey`'s hash slot, as one MULTI/EXEC transaction: their
 * replies in order, strings as bytes, an error reply as an `Error` in its place. Rejects with a
 * {@link TransactionRefusedError} when `MULTI` itself was refused.
 */
export type TransactionRunner = (
  firstKey: string,
  commands: readonly (readonly string[])[],
) => Promise<unknown[]>;

/** `MULTI` itself refused, with the server's reply as its message (`NOPERM …` from an ACL). */
export class TransactionRefusedError extends Error {
  constructor(reply: unknown) {
    super(reply instanceof Error ? reply.message : String(reply), { cause: reply });
    this.name = 'TransactionRefusedError';
  }
}

/** How {@link ScriptedOperations} reads one key of a hash read in a transaction. */
interface TransactionRead {
  /** `HVALS` (parts) or `HGETALL` (fields and parts). */
  readonly command: 'HVALS' | 'HGETALL';
  /** The bytes of each part wanted, at the key's position (undefined: whole parts). */
  readonly heads?: readonly (number | undefined)[];
}

/** The script-backed part of a {@link RollupStore} on Redis. */
export class ScriptedOperations {
  readonly #run: ScriptRunner;
  readonly #clustered: boolean;
  /**
   * How transactions are run; none once `MULTI` was refused a permission (`NOPERM`: an ACL without
   * it): it would be refused again every time, and the transaction's commands run outside one
   * before the script read the same keys. Reads go by the script from then on; a user granted
   * `MULTI` later uses transactions from the next start. A command or key refused within a
   * transaction leaves them on.
   */
  #transact: TransactionRunner | undefined;

  constructor(
    run: ScriptRunner,
    options: { readonly clustered: boolean; readonly transact?: TransactionRunner },
  ) {
    this.#run = run;
    this.#clustered = options.clustered;
    this.#transact = options.transact;
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

  readParts(parts: readonly PartRef[], stream: string): Promise<(Uint8Array | null)[]> {
    return this.#readEach(
      parts.map((part) => part.key),
      READ_PARTS_SCRIPT,
      (group, positions) => readPartsCall(group, stream, positions.map((p) => parts[p]?.slot)),
      partBytes,
      { asBytes: true },
    );
  }

  readBuckets(keys: readonly string[]): Promise<Uint8Array[][]> {
    return this.#readEach(
      keys,
      READ_HASHES_SCRIPT,
      (group) => readHashesCall(group),
      bucketParts,
      { asBytes: true, transaction: { command: 'HVALS' } },
    );
  }

  readSlots(reads: readonly HashRead[]): Promise<SlottedPart[][]> {
    const heads = reads.map((read) => read.headBytes);
    return this.#readEach(
      reads.map((read) => read.key),
      READ_HASHES_SCRIPT,
      (group, positions) => readHashesCall(group, positions.map((p) => heads[p])),
      slottedParts,
      { asBytes: true, transaction: { command: 'HGETALL', heads } },
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
   * in `keys`, and puts each key's value back in its place. With `asBytes`, the replies' strings
   * are asked for as bytes; with `transaction`, each call is first tried as a transaction of
   * plain commands (see the module's comment).
   */
  async #readEach<T>(
    keys: readonly string[],
    script: LuaScript,
    callOf: (group: string[], positions: readonly number[]) => ScriptCall,
    read: (value: unknown) => T,
    options: { readonly asBytes?: boolean; readonly transaction?: TransactionRead } = {},
  ): Promise<T[]> {
    const { asBytes = false, transaction } = options;
    const out = new Array<T>(keys.length);
    const groups = this.#clustered ? groupByHashTag(keys) : [keys.map((_, i) => i)];
    const calls: Promise<void>[] = [];
    for (const group of groups) {
      for (let i = 0; i < group.length; i += READ_CHUNK) {
        const positions = group.slice(i, i + READ_CHUNK);
        const chunk = positions.map((p) => keys[p] as string);
        const replies = transaction === undefined
          ? this.#runRead(script, callOf(chunk, positions), asBytes)
          : this.#readInTransaction(chunk, positions, transaction).then((replies) =>
            replies ?? this.#runRead(script, callOf(chunk, positions), asBytes)
          );
        calls.push(replies.then((values) => {
          positions.forEach((position, j) => {
            out[position] = read(values[j]);
          });
        }));
      }
    }
    await Promise.all(calls);
    return out;
  }

  async #runRead(script: LuaScript, call: ScriptCall, asBytes: boolean): Promise<unknown[]> {
    const reply = await this.#run(script, call, asBytes);
    return Array.isArray(reply) ? reply : [];
  }

  /**
   * The replies of `read.command` on each of `keys` (at `positions` of the whole read) in one
   * transaction, parts cut to their heads; null when there is no way to run one, when it failed
   * or when any reply is an error: the script reads those keys then.
   */
  async #readInTransaction(
    keys: readonly string[],
    positions: readonly number[],
    read: TransactionRead,
  ): Promise<unknown[] | null> {
    const transact = this.#transact;
    const first = keys[0];
    if (transact === undefined || first === undefined) return null;
    let replies: unknown[];
    try {
      replies = await transact(first, keys.map((key) => [read.command, key]));
    } catch (error) {
      if (error instanceof TransactionRefusedError && error.message.startsWith('NOPERM')) {
        this.#transact = undefined;
      }
      return null;
    }
    if (replies.some((reply) => reply instanceof Error)) return null;
    const { heads } = read;
    if (heads === undefined) return replies;
    return replies.map((reply, j) => {
      const head = heads[positions[j] as number];
      return head === undefined ? reply : headsOf(reply, head);
    });
  }
}

/** An `HGETALL` reply (fields and parts in turn) with each part cut to its first `bytes` bytes. */
function headsOf(reply: unknown, bytes: number): unknown {
  if (!Array.isArray(reply)) return reply;
  const cut: unknown[] = reply.slice();
  for (let i = 1; i < cut.length; i += 2) {
    const part: unknown = cut[i];
    if (part instanceof Uint8Array) cut[i] = part.subarray(0, bytes);
  }
  return cut;
}
