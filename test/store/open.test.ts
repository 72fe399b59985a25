/**
 * `openStore` says when each kind of store may be used: the consumers and the demo wait for it.
 * The embedded store and Upstash keep no connection, so they are ready at once.
 */
import { expect, test } from 'vitest';
import { Secret } from '../../src/config/secret.ts';
import { openStore } from '../../src/store/open.ts';

test.each([
  { kind: 'memory', maxBytes: 1024 * 1024 } as const,
  { kind: 'upstash', url: 'http://127.0.0.1:1', token: new Secret('unused') } as const,
])('a $kind store is ready at once, and has no eviction policy to check', async (config) => {
  let ready = 0;
  const opened = openStore(config, { nowMs: () => 0, onReady: () => (ready += 1) });
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(ready).toBe(1);
  expect(await opened.evictionPolicy()).toBeNull();
  await opened.store.close();
});
