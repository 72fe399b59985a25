/**
 * A Redis that answers but refuses writes, and says why: it is full (`OOM`, `maxmemory` reached
 * under `noeviction`), a read-only replica (`READONLY`: a client still pointed at a demoted
 * master), failing its snapshots (`MISCONF`), busy with a script (`BUSY`), or the user lacks a
 * command (`NOPERM`). Each is a state of the store, like an outage: said once with what to do,
 * not as a stack trace per batch; the writes wait and are made once it accepts them again.
 *
 * @example
 * ```ts
 * writeRefusalOf(new Error("OOM command not allowed when used memory > 'maxmemory'.")); // 'full'
 * writeRefusalOf(new Error('connect ECONNREFUSED 127.0.0.1:6379')); // null
 * ```
 *
 * @module
 */

/** Why the store refuses writes. */
export type WriteRefusal = 'full' | 'readonly' | 'misconf' | 'busy' | 'noperm';

/** Every {@link WriteRefusal}, in the order metrics list them. */
export const WRITE_REFUSALS: readonly WriteRefusal[] = [
  'full',
  'readonly',
  'misconf',
  'busy',
  'noperm',
];

/** The error code Redis starts each refusal's reply with. */
const CODES: Readonly<Record<string, WriteRefusal>> = {
  OOM: 'full',
  READONLY: 'readonly',
  MISCONF: 'misconf',
  BUSY: 'busy',
  NOPERM: 'noperm',
};

/** Why `error` says the store refused a write, or null when it says something else. */
export function writeRefusalOf(error: unknown): WriteRefusal | null {
  if (!(error instanceof Error)) return null;
  const code = /^([A-Z]+)\b/.exec(error.message)?.[1];
  return code === undefined ? null : CODES[code] ?? null;
}

/** What health checks say while the store refuses writes for `reason`. */
export function refusingText(reason: WriteRefusal): string {
  return `the store refuses writes (${reason}): answers are going stale`;
}

/**
 * Why a Redis would refuse writes, as its `INFO` says (`memory`, `replication`, `persistence`
 * sections' text): a replica, `maxmemory` reached under `noeviction`, snapshots failing. A
 * busy script or a missing permission shows only in a refused write.
 */
export function refusalInInfo(text: string): WriteRefusal | null {
  if (/^role:slave\s*$/m.test(text)) return 'readonly';
  const maxBytes = infoNumber(text, 'maxmemory');
  if (
    maxBytes > 0 && infoNumber(text, 'used_memory') >= maxBytes &&
    /^maxmemory_policy:noeviction\s*$/m.test(text)
  ) return 'full';
  if (/^rdb_last_bgsave_status:err\s*$/m.test(text)) return 'misconf';
  return null;
}

/** Of several servers' `INFO` texts (a cluster's masters), the first refusal one would make. */
export function refusalInInfos(texts: readonly string[]): WriteRefusal | null {
  for (const text of texts) {
    const refusal = refusalInInfo(text);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** Of several servers' `INFO memory` texts, the server nearest its `maxmemory`, or null. */
export function fullestMemory(texts: readonly string[]): StoreMemory | null {
  const fill = (memory: StoreMemory) =>
    memory.maxBytes === 0 ? 0 : memory.usedBytes / memory.maxBytes;
  let fullest: StoreMemory | null = null;
  for (const text of texts) {
    const memory = {
      usedBytes: infoNumber(text, 'used_memory'),
      maxBytes: infoNumber(text, 'maxmemory'),
    };
    if (fullest === null || fill(memory) > fill(fullest)) fullest = memory;
  }
  return fullest;
}

/** The number of `field` in an `INFO` reply's text (0 when absent). */
export function infoNumber(text: string, field: string): number {
  return Number(new RegExp(`^${field}:(\\d+)\\s*$`, 'm').exec(text)?.[1] ?? 0);
}

/** How full a Redis is, as `INFO memory` says. */
export interface StoreMemory {
  /** `used_memory`, bytes. */
  readonly usedBytes: number;
  /** `maxmemory`, bytes (0: no limit). */
  readonly maxBytes: number;
}

/**
 * What an operator reads when the store starts refusing writes: the cause and what to do, with
 * the memory in use and the limit when the store is full and says them.
 */
export function refusalAdvice(reason: WriteRefusal, memory: StoreMemory | null): string {
  switch (reason) {
    case 'full':
      return `the store is full${
        memory === null
          ? ''
          : ` (${mebibytes(memory.usedBytes)} in use of maxmemory ${mebibytes(memory.maxBytes)})`
      }: raise maxmemory (redis-cli CONFIG SET maxmemory <bytes>, and in redis.conf) or add ` +
        'shards; writes wait until it has room (docs/OPERATIONS.md, "StoreRefusingWrites")';
    case 'readonly':
      return 'the store is a read-only replica: point REDIS_URL (or REDIS_CLUSTER_NODES) at the ' +
        'master; writes wait until one accepts them (docs/OPERATIONS.md, "StoreRefusingWrites")';
    case 'misconf':
      return 'the store refuses writes because its snapshots fail (MISCONF): fix the disk or the ' +
        'dump directory (redis-cli CONFIG GET dir), see its log; writes wait until it accepts ' +
        'them (docs/OPERATIONS.md, "StoreRefusingWrites")';
    case 'busy':
      return 'the store is busy running a script (BUSY): it answers nothing else until the ' +
        'script ends (redis-cli SCRIPT KILL ends a read-only one); writes wait ' +
        '(docs/OPERATIONS.md, "StoreRefusingWrites")';
    case 'noperm':
      return "the store's user lacks a command the writers need (NOPERM): grant it " +
        '(ACL SETUSER <user> +@all, or the commands named in docs/MANAGED-SERVICES.md); writes ' +
        'wait until it may (docs/OPERATIONS.md, "StoreRefusingWrites")';
  }
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}
