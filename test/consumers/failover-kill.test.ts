/**
 * A Redis Cluster master SIGKILLed mid-stream, its last writes copied to no replica (issue 35,
 * item 2): Redis promotes the replica, which never saw them. The consumers and the API's store
 * keep running; once settled, every answer, the host registry, every ring buffer and every
 * admitted-key set must be what the events make of them, and the writes lost must have been
 * folded again (the fault is proved: the master had acknowledged bytes the promoted replica's
 * history does not reach).
 */
import { gone, signal } from '../support/own-services.ts';
import { describeFailover } from './failover-suite.ts';

describeFailover(
  'a Redis Cluster master SIGKILLed mid-stream',
  'the replica is promoted without the lost writes, and they are folded again',
  'SIGKILL',
  async (shard) => {
    signal(shard.master, 'SIGKILL');
    await gone(shard.master);
    signal(shard.replica, 'SIGCONT');
  },
);
