/**
 * Opens the store the configuration names.
 *
 * @module
 */
import type { StoreConfig } from '../config.ts';
import { MemoryStore } from './memory.ts';
import type { RollupStore } from './port.ts';
import { RedisStore } from './redis.ts';
import { UpstashStore } from './upstash.ts';

/** Opens (and for Redis over TCP, connects) the configured store. */
export async function openStore(
  config: StoreConfig,
  options: { nowMs: () => number; onError?: (error: Error) => void },
): Promise<RollupStore> {
  switch (config.kind) {
    case 'memory':
      return new MemoryStore({ nowMs: options.nowMs });
    case 'redis':
      return await RedisStore.connect(
        config.url,
        options.onError === undefined ? {} : { onError: options.onError },
      );
    case 'redis-cluster':
      return await RedisStore.connectCluster(
        config.nodes,
        options.onError === undefined ? {} : { onError: options.onError },
      );
    case 'upstash':
      return new UpstashStore({ url: config.url, token: config.token });
  }
}
