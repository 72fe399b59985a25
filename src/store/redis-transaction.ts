/**
 * Transactions over node-redis: one `MULTI`/`EXEC` on one Redis, or on the cluster node of a
 * key's slot, each command's reply in its place, its strings as Buffers (an error reply as its
 * `ErrorReply`, so the reader can tell a key it must read otherwise from a failed call).
 *
 * node-redis's own `multi()` decodes `EXEC`'s reply as text whatever type mapping it is given
 * (it queues `EXEC` without one), so a transaction is sent as plain commands: `MULTI`, the
 * commands and `EXEC`, `EXEC` asked for Buffers. They are queued on one connection in one
 * synchronous run, as one chain: node-redis writes a connection's commands in the order they were
 * queued, and when the connection fails it drops the rest of a chain rather than write it on the
 * next one. That holds for the clients this store makes: no command timeout, no queue limit and no
 * abort signal, any of which could drop `EXEC` alone and leave the connection inside `MULTI`.
 * A transaction that cannot run whole (a command refused at queueing, a connection lost between
 * them, a slot on the move) fails, and the reader asks again another way (src/store/scripted.ts).
 *
 * @example
 * ```ts
 * const transact = clientTransaction(client);
 * const [fields] = await transact('{p}:s:1', [['HGETALL', '{p}:s:1']]);
 * ```
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import calculateSlot from 'cluster-key-slot';
import { type createClient, type createCluster, RESP_TYPES, type TypeMapping } from 'redis';
import { TransactionRefusedError, type TransactionRunner } from './scripted.ts';

type Client = ReturnType<typeof createClient>;
type Cluster = ReturnType<typeof createCluster>;

/** Replies' bulk strings as Buffers: the stores' readers decode the stored bytes themselves. */
export const BYTES_TYPE_MAPPING = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;

/** What a transaction is sent through: one connection's command queue. */
export interface CommandQueue {
  sendCommand(
    args: string[],
    options: { readonly chainId: symbol; readonly typeMapping?: TypeMapping },
  ): Promise<unknown>;
}

/**
 * `commands` as one `MULTI`/`EXEC` on `queue`: `EXEC`'s replies in order, read with
 * `typeMapping`. Rejects when the transaction did not run whole, with a
 * {@link TransactionRefusedError} when `MULTI` itself was refused.
 */
export async function transaction(
  queue: CommandQueue,
  commands: readonly (readonly string[])[],
  typeMapping: TypeMapping = BYTES_TYPE_MAPPING,
): Promise<unknown[]> {
  const chainId = Symbol('transaction');
  const multi = queue.sendCommand(['MULTI'], { chainId });
  const queued: Promise<unknown>[] = [];
  for (const args of commands) queued.push(queue.sendCommand([...args], { chainId }));
  const exec = queue.sendCommand(['EXEC'], { chainId, typeMapping });
  const [begun, answers, replies] = await Promise.allSettled([multi, Promise.all(queued), exec]);
  // A refused MULTI makes EXEC fail too (EXEC without MULTI), a refused command EXECABORT.
  if (begun.status === 'rejected') throw new TransactionRefusedError(begun.reason);
  if (answers.status === 'rejected') throw answers.reason;
  if (replies.status === 'rejected') throw replies.reason;
  const { value } = replies;
  if (!Array.isArray(value) || value.length !== commands.length) {
    throw new Error(`a transaction of ${commands.length} commands answered ${String(value)}`);
  }
  return value;
}

/** Transactions on one Redis through `client`. */
export function clientTransaction(client: Client): TransactionRunner {
  return (_firstKey, commands) => transaction(client, commands);
}

/**
 * Transactions on the master of `firstKey`'s slot, through whichever cluster client `connected()`
 * returns. Not through redirections: a transaction that meets one (`MOVED`, `ASK`) fails.
 */
export function clusterTransaction(connected: () => Cluster): TransactionRunner {
  return async (firstKey, commands) => {
    const cluster = connected();
    const master = cluster.slots[calculateSlot(firstKey)]?.master;
    if (master === undefined) throw new Error(`no master is known for the slot of ${firstKey}`);
    return await transaction(await cluster.nodeClient(master), commands);
  };
}
