/**
 * The image as deploy/supabase/docker-compose.analytics.yml runs it in a self-hosted Supabase
 * stack: the override's command and environment, Logflare's two tokens mounted as the secrets'
 * files under /run/secrets. The override's health check (the image's own) finds it healthy, then
 * it takes Vector's events of every source with the public token and answers with the private one.
 *
 * Prints the time from `run` to the first health check that passes (BENCHMARKS.md, "In a Supabase
 * stack"). The port is a free one of the host's network here (the stack's 4000 may be in use).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort } from '../../tools/services/free-port.ts';
import { recentFixture, VECTOR_SOURCES } from '../fixtures/supabase/vector-events.ts';
import { readOverride } from '../fixtures/supabase/override.ts';
import { type Container, engine, startContainer } from './engine.ts';

const PUBLIC_TOKEN = 'image-test-logflare-public-access-token';
const PRIVATE_TOKEN = 'image-test-logflare-private-access-token';

const name = `image-supabase-${randomUUID().slice(0, 8)}`;
let container: Container | null = null;
let url = '';
let healthySeconds = 0;

beforeAll(async () => {
  const service = readOverride().compose.services.analytics;
  const secrets = mkdtempSync(join(tmpdir(), 'image-secrets-'));
  const mounts: string[] = [];
  for (
    const [secret, token] of [
      ['logflare_public_access_token', PUBLIC_TOKEN],
      ['logflare_private_access_token', PRIVATE_TOKEN],
    ]
  ) {
    const file = join(secrets, String(secret));
    writeFileSync(file, `${token}\n`);
    // Compose mounts a secret readable by the container's user.
    chmodSync(file, 0o644);
    mounts.push('-v', `${file}:/run/secrets/${secret}:ro`);
  }
  chmodSync(secrets, 0o755);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  container = await startContainer(
    name,
    { ...service.environment, PORT: String(port) },
    service.command,
    mounts,
  );
  // As the override's start_interval asks, every half second, until it passes (up to 60 s).
  for (let tries = 0; tries < 120; tries++) {
    if ((await engine(['healthcheck', 'run', name])).code === 0) {
      healthySeconds = (performance.now() - started) / 1000;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the container never got healthy:\n${await container.logs()}`);
}, 180_000);

afterAll(async () => {
  await container?.remove();
  console.log(`image as Supabase's analytics: healthy ${healthySeconds.toFixed(2)} s after run`);
}, 60_000);

test("healthy by the override's check, then Vector's events taken and answered", async () => {
  expect(healthySeconds).toBeGreaterThan(0);
  for (const source of VECTOR_SOURCES) {
    const response = await fetch(`${url}/api/logs?source_name=${source}`, {
      method: 'POST',
      headers: { 'x-api-key': PUBLIC_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify(recentFixture(source, Date.now())),
    });
    expect(response.status, source).toBe(200);
  }
  const logs = await fetch(`${url}/api/endpoints/logs.all?project=default`, {
    headers: { Authorization: `Bearer ${PRIVATE_TOKEN}` },
  });
  expect(logs.status).toBe(200);
  expect((await logs.json() as { result: unknown[] }).result).toHaveLength(
    recentFixture('cloudflare.logs.prod', 0).length,
  );
  const refused = await fetch(`${url}/api/logs?source_name=gotrue.logs.prod`, {
    method: 'POST',
    headers: { 'x-api-key': 'not-the-token-0123456789' },
    body: '[]',
  });
  expect(refused.status).toBe(401);
});
