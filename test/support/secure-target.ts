/**
 * A secure Redis of the test run as a {@link StoreTarget}, reached as the service reaches it:
 * its settings read by `loadConfig` and handed over by the store's own `redisAccess`.
 *
 * @module
 */
import { loadConfig } from '../../src/config.ts';
import { redisAccess } from '../../src/store/open.ts';
import type { SecureAddress } from './services.ts';
import type { StoreTarget } from './store-target.ts';

/** The target of a secure Redis or Redis Cluster, from its settings and `overrides`. */
export function secureTarget(
  address: SecureAddress,
  overrides: Readonly<Record<string, string>> = {},
): StoreTarget {
  const store = loadConfig({ ...address.settings, ...overrides }).store;
  switch (store.kind) {
    case 'redis':
      return { kind: 'redis', url: store.url, access: redisAccess(store.security) };
    case 'redis-cluster':
      return { kind: 'redis-cluster', nodes: store.nodes, access: redisAccess(store.security) };
    default:
      throw new Error(`the settings of a secure Redis name a ${store.kind} store`);
  }
}
