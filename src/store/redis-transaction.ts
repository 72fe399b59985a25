/**
 * Read-only transactions over node-redis: one `MULTI`/`EXEC` on one Redis, or on the cluster
 * node of a key's slot, each command's reply in its place, its strings as Buffers (an error reply
 * as its `ErrorReply`, so the reader can tell a key it must read otherwise from a failed call).
 *
 * node-redis's own `multi()` decodes `EXEC`'s reply as text whatever type mapping it is given,
 * so the transaction is sent as plain commands: `MULTI`, the commands and `EXEC`, queued on one
 * connection in one synchronous run, so that no other command of this process comes between
 * them, and `EXEC` asked for Buffers. A transaction that cannot run whole (a command refused at
 * queueing, a connection lost between them, a slot on the move) fails, and the reader asks again
 * another way (src/store/scripted.ts).
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
import { type createClient, type createCluster, RESP_TYPES } from 'redis';
import type { TransactionRunner } from './scripted.ts';

type Client = ReturnType<typeof createClient>;
type Cluster = ReturnType<typeof createCluster>;

/** What a transaction is sent through: one connection's commands, in the order they are given. */
interface CommandQueue {
  sendCommand(
    args: string[],
    options?: { readonly typeMapping: typeof AS_BYTES },
  ): Promise<unknown>;
}

/** The replies' strings as Buffers: the readers decode the stored bytes themselves. */
const AS_BYTES = { [RESP_TYPES.BLOB_STRING]: Buffer };

/** `commands` as one `MULTI`/`EXEC` on `queue`: `EXEC`'s replies in order. */
async function transactOn(
  queue: CommandQueue,
  commands: readonly (readonly string[])[],
): Promise<unknown[]> {
  // Queued in one synchronous run: node-redis writes a connection's commands in call order.
  const queued = [queue.sendCommand(['MULTI'])];
  for (const args of commands) queued.push(queue.sendCommand([...args]));
  const exec = queue.sendCommand(['EXEC'], { typeMapping: AS_BYTES });
  const [answers, replies] = await Promise.allSettled([Promise.all(queued), exec]);
  // A refused MULTI makes EXEC fail too (EXEC without MULTI), a refused command EXECABORT.
  if (answers.status === 'rejected') throw answers.reason;
  if (replies.status === 'rejected') throw replies.reason;
  return Array.isArray(replies.value) ? replies.value : [];
}

/** Transactions on one Redis through `client`. */
export function clientTransaction(client: Client): TransactionRunner {
  return (_firstKey, commands) => transactOn(client, commands);
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
    return await transactOn(await cluster.nodeClient(master), commands);
  };
}
