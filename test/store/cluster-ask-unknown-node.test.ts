/**
 * A slot being moved to a master that serves no slot yet (scaling out: a node added, then
 * resharded to): the slot's owner answers ASK for a key it does not hold, and node-redis's
 * cluster client, which learns of masters only from CLUSTER SLOTS, throws `Cannot find node
 * <address>`. Before, nothing took that for a cluster that is away for a moment: a failed call,
 * logged whole by the consumers and a 500 from the API. The store must say it is away (retried,
 * its map asked for again) and serve the key once the move is done.
 */
import { bucketTexts } from '../support/stored-parts.ts';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { withTimeout } from '../../src/async/timeout.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import { isStoreAway } from '../../src/store/away.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import {
  CLUSTER_BUS_OFFSET,
  redisClusterNodeServices,
} from '../../tools/services/redis-cluster.ts';
import type { Service } from '../../tools/services/service.ts';
import { type OwnCluster, startOwnCluster } from '../support/own-cluster.ts';
import { describeWithServices } from '../support/services.ts';

describeWithServices(['redis-server'], 'a slot moving to a master the client does not know', () => {
  let cluster: OwnCluster;
  let added: Service;
  let store: RedisStore;

  beforeAll(async () => {
    cluster = await startOwnCluster();
    const [node] = redisClusterNodeServices({
      ports: [await freePort({ alsoAbove: CLUSTER_BUS_OFFSET })],
    });
    if (node === undefined) throw new Error('no node');
    added = node;
    rmSync(serviceDir(added.name), { recursive: true, force: true });
    await up(added, () => undefined);
    store = await RedisStore.connectCluster(cluster.nodes);
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    if (added !== undefined) await down(added);
    await cluster?.stop();
  }, 60_000);

  /** Whether `node` lists `id` among the nodes it knows, its handshake over. */
  const knows = async (node: Service, id: string): Promise<boolean> =>
    String(await cluster.command(node, ['CLUSTER', 'NODES'])).split('\n').some((line) =>
      line.startsWith(`${id} `) && !line.includes('handshake')
    );

  test('a key asked for is the store away while it moves, and served once it has', async () => {
    const key = resumeKey(`moving-${randomUUID()}/0`);
    const { master } = await cluster.shardOf(key);
    const slot = String(await cluster.command(master, ['CLUSTER', 'KEYSLOT', key]));
    // The new node joins as a master without slots, which CLUSTER SLOTS does not list.
    await cluster.command(master, ['CLUSTER', 'MEET', added.host, String(added.port)]);
    const ids = {
      owner: String(await cluster.command(master, ['CLUSTER', 'MYID'])),
      added: String(await cluster.command(added, ['CLUSTER', 'MYID'])),
    };
    // Once the handshake is over, and gossip has told every master, each knows the other by its
    // own id.
    const masters = [];
    for (const node of cluster.services) {
      const role = String(await cluster.command(node, ['ROLE']));
      if (role.startsWith('master')) masters.push(node);
    }
    const joinedBy = Date.now() + 30_000;
    for (;;) {
      const known = await Promise.all(masters.map((node) => knows(node, ids.added)));
      if (await knows(added, ids.owner) && known.every(Boolean)) break;
      if (Date.now() > joinedBy) throw new Error('the new node did not join within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await cluster.command(added, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids.owner]);
    await cluster.command(master, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids.added]);

    // The owner does not hold the key: it sends the client to the node it does not know.
    const error = await store.readOffset(key).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/Cannot find node|CLUSTERDOWN/);
    expect(isStoreAway(error), `${String(error)}`).toBe(true);

    // The move is done: every node says the new one serves the slot.
    for (const node of [added, ...masters]) {
      await cluster.command(node, ['CLUSTER', 'SETSLOT', slot, 'NODE', ids.added])
        .catch(() => undefined);
    }
    // A hash of the moved slot, read through the store, whose map still says the old owner: its
    // transaction meets MOVED, and the script's read follows the redirection.
    const hash = `${key}:parts`; // the same hash tag, so the same slot
    const servedBy = Date.now() + 60_000;
    // The new node answers CLUSTERDOWN until it has heard that every slot is served.
    for (;;) {
      const written = await cluster.command(added, ['HSET', hash, 't/0', 'part 0', '3 t/0', 'x'])
        .then(() => true, (error: unknown) => {
          if (Date.now() > servedBy) throw error;
          return false;
        });
      if (written) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    let parts: Uint8Array[][] | undefined;
    while (parts === undefined && Date.now() < servedBy) {
      parts = await withTimeout(store.readBuckets([hash]), 5_000, (): never => {
        throw new Error('no answer within 5 s');
      }).catch(() => undefined);
      if (parts === undefined) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(bucketTexts(parts ?? []).map((each) => each.toSorted())).toEqual([[
      'part 0',
      'x',
    ]]);
    let offset: number | null | undefined;
    while (offset === undefined && Date.now() < servedBy) {
      offset = await withTimeout(
        store.advanceOffset(key, null, 5).then(() => store.readOffset(key)),
        5_000,
        (): never => {
          throw new Error('no answer within 5 s');
        },
      )
        .catch(() => undefined);
      if (offset === undefined) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(offset).toBe(5);
    expect(await cluster.command(added, ['GET', key])).toBe('5');
  }, 180_000);
});
