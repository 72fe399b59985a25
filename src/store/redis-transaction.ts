/**
 * Read-only transactions over node-redis: one `MULTI`/`EXEC` on one Redis, or on the cluster
 * node of a key's slot, each command's reply in its place (an error reply as its `ErrorReply`,
 * so the reader can tell a key it must read otherwise from a failed call).
 *
 * @example
 * ```ts
 * const transact = clientTransaction(client);
 * const [fields] = await transact('{p}:s:1', [['HGETALL', '{p}:s:1']]);
 * ```
 *
 * @module
 */
import { type createClient, type createCluster, MultiErrorReply } from 'redis';
import type { TransactionRunner } from './scripted.ts';

type Client = ReturnType<typeof createClient>;
type Cluster = ReturnType<typeof createCluster>;

/** A transaction's replies in order, an error reply as the `ErrorReply` in its place. */
async function repliesOf(exec: Promise<unknown>): Promise<unknown[]> {
  try {
    const replies = await exec;
    return Array.isArray(replies) ? replies : [];
  } catch (error) {
    if (error instanceof MultiErrorReply) return error.replies;
    throw error;
  }
}

/** Transactions on one Redis through `client`. */
export function clientTransaction(client: Client): TransactionRunner {
  return async (_firstKey, commands) => {
    const multi = client.multi();
    for (const args of commands) multi.addCommand([...args]);
    return await repliesOf(multi.exec());
  };
}

/**
 * Transactions on the node of `firstKey`'s slot, through whichever cluster client `connected()`
 * returns. Not through redirections: a transaction that meets one (`MOVED`, `ASK`) fails, and the
 * reader asks again another way (src/store/scripted.ts).
 */
export function clusterTransaction(connected: () => Cluster): TransactionRunner {
  return async (firstKey, commands) => {
    const multi = connected().multi(firstKey);
    for (const args of commands) multi.addCommand(firstKey, false, [...args]);
    return await repliesOf(multi.exec());
  };
}
