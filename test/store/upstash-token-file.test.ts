/**
 * The REST transport's token from a file (`UPSTASH_REDIS_REST_TOKEN_FILE`, as a container
 * secret is mounted), through the same `openStore` the service uses: the endpoint takes it, and
 * refuses another.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/open.ts';
import { describeWithServices } from '../support/services.ts';

describeWithServices(['upstash'], 'Upstash REST token from a file', ({ upstash }) => {
  const storeWithToken = (token: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'rest-token-')), 'token');
    writeFileSync(file, `${token}\n`);
    const config = loadConfig({
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN_FILE: file,
    });
    return openStore(config.store, { nowMs: Date.now }).store;
  };

  test('the endpoint takes the token the file holds', async () => {
    await storeWithToken(upstash.token).ping();
  });

  test('and refuses another', async () => {
    await expect(storeWithToken(`not-${upstash.token}`).ping()).rejects.toThrow();
  });
});
