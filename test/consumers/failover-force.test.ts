/**
 * A Redis Cluster master demoted by `CLUSTER FAILOVER FORCE` run on its replica while the
 * replica lagged (issue 35, item 2): the replica takes over without waiting for the master's
 * last writes, and the old master, once it learns it was demoted, copies the new master and
 * drops what it had alone, writes it had acknowledged to the consumers. The lag is made
 * deterministic: the replica is frozen (SIGSTOP) and its link closed by the master, then the
 * master is frozen too while the replica wakes and takes over, so that it cannot copy the rest
 * first. The consumers and the API's store keep running; once settled, everything is exact.
 */
import { infoField } from '../support/own-cluster.ts';
import { signal } from '../support/own-services.ts';
import { describeFailover } from './failover-suite.ts';

describeFailover(
  'a Redis Cluster master demoted by CLUSTER FAILOVER FORCE mid-stream',
  'the old master drops its unreplicated writes, and they are folded again',
  'FORCE',
  async (shard, cluster) => {
    signal(shard.master, 'SIGSTOP');
    signal(shard.replica, 'SIGCONT');
    await cluster.command(shard.replica, ['CLUSTER', 'FAILOVER', 'FORCE']);
    await cluster.promoted(shard.replica);
    signal(shard.master, 'SIGCONT');
    // The old master learns the new configuration and becomes the new master's replica.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const info = String(await cluster.command(shard.master, ['INFO', 'replication']));
      if (infoField(info, 'role') === 'slave') return;
      if (Date.now() > deadline) throw new Error('the old master is not a replica after 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  },
);
