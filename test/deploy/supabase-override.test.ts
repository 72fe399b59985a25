/**
 * deploy/supabase/docker-compose.analytics.yml, the drop-in for a self-hosted Supabase stack's
 * `analytics` service, checked without a Docker engine: valid against the Compose schema, the
 * same service name and port, Logflare's keys as secrets, no database to wait for, the image's
 * own health check; then the service run as the file configures it (its environment, its secrets
 * as files) is found healthy by that check, takes Vector's events with the public key and answers
 * Studio's queries with the private one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { composeValidator } from './compose-schema.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { defaultQuery } from '../fixtures/supabase/studio-sql.ts';
import { recentFixture } from '../fixtures/supabase/vector-events.ts';
import { readOverride, type Tagged } from '../fixtures/supabase/override.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PUBLIC_TOKEN = 'your-super-secret-and-long-logflare-key-public';
const PRIVATE_TOKEN = 'your-super-secret-and-long-logflare-key-private';

const { tagged, compose } = readOverride();
const analytics = compose.services.analytics;

describe('the compose override', () => {
  test('is valid against the Compose specification schema', () => {
    const { ajv, validate } = composeValidator({ allErrors: true });
    validate(compose);
    expect(validate.errors ?? [], ajv.errorsText(validate.errors)).toEqual([]);
  });

  test("replaces Logflare's environment and dependencies, keeping the name and the port", () => {
    expect((tagged.services.analytics['environment'] as Tagged).tag).toBe('!override');
    expect((tagged.services.analytics['depends_on'] as Tagged).tag).toBe('!reset');
    expect((tagged.services.analytics['healthcheck'] as Tagged).tag).toBe('!override');
    expect(analytics.environment['PORT']).toBe('4000');
    expect(analytics.environment['HOST']).toBe('0.0.0.0');
    expect(analytics.depends_on).toEqual({});
    expect(analytics.healthcheck.test).toEqual(['CMD', 'node', 'service/healthcheck.ts']);
  });

  test("takes Logflare's two tokens as secrets from the stack's environment", () => {
    for (const name of ['LOGFLARE_PUBLIC_ACCESS_TOKEN', 'LOGFLARE_PRIVATE_ACCESS_TOKEN']) {
      const secret = name.toLowerCase();
      expect(compose.secrets[secret]).toEqual({ environment: name });
      expect(analytics.secrets).toContain(secret);
      expect(analytics.environment[`${name}_FILE`]).toBe(`/run/secrets/${secret}`);
      expect(analytics.environment[name]).toBeUndefined();
    }
  });
});

describe('the service as the override runs it', () => {
  let stop: () => Promise<void> = () => Promise.resolve();
  let env: NodeJS.ProcessEnv = {};
  let base = '';

  beforeAll(async () => {
    const secrets = mkdtempSync(join(tmpdir(), 'supabase-secrets-'));
    writeFileSync(join(secrets, 'logflare_public_access_token'), `${PUBLIC_TOKEN}\n`);
    writeFileSync(join(secrets, 'logflare_private_access_token'), `${PRIVATE_TOKEN}\n`);
    const port = await freePort();
    // The override's environment, its secrets where this machine has them, and a free port.
    const configured = Object.fromEntries(
      Object.entries(analytics.environment).map((
        [name, value],
      ) => [name, value.replace('/run/secrets', secrets)]),
    );
    env = {
      PATH: process.env['PATH'],
      ...configured,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
    base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['service/main.ts', ...analytics.command], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    stop = async () => {
      child.kill('SIGTERM');
      await exited;
    };
  }, 30_000);

  afterAll(() => stop());

  test('is found healthy by the health check, then takes and answers as Logflare did', async () => {
    const [, node, script] = analytics.healthcheck.test;
    let healthy = false;
    for (let attempt = 0; attempt < 300 && !healthy; attempt++) {
      const check = spawnSync(node === 'node' ? process.execPath : String(node), [String(script)], {
        cwd: ROOT,
        env,
      });
      healthy = check.status === 0;
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(healthy).toBe(true);

    // Vector's events of the last seconds, as it would post them now.
    const recent = recentFixture('cloudflare.logs.prod', Date.now());
    const posted = await fetch(`${base}/api/logs?source_name=cloudflare.logs.prod`, {
      method: 'POST',
      headers: { 'x-api-key': PUBLIC_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify(recent),
    });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual({ message: 'Logged!' });
    const logs = await fetch(`${base}/api/endpoints/query/logs.all?project=default`, {
      headers: { Authorization: `Bearer ${PRIVATE_TOKEN}` },
    });
    expect(logs.status).toBe(200);
    expect(((await logs.json()) as { result: unknown[] }).result).toHaveLength(recent.length);
    // Studio's API log page, as its self-hosted proxy asks for it: the override runs its SQL.
    const studio = await fetch(
      `${base}/api/endpoints/query/logs.all?${new URLSearchParams({
        project: 'default',
        sql: defaultQuery('edge_logs', { 'method.get': true }),
        iso_timestamp_start: new Date(Date.now() - 3_600_000).toISOString(),
        iso_timestamp_end: '',
      })}`,
      { headers: { 'x-api-key': PRIVATE_TOKEN } },
    );
    expect(studio.status).toBe(200);
    const page = ((await studio.json()) as { result: { id: string; method: string }[] }).result;
    const gets = recent.filter((event) =>
      (event['metadata'] as { request?: { method?: string } }).request?.method === 'GET'
    );
    expect(page.map((row) => row.method)).toEqual(gets.map(() => 'GET'));
    expect(page.length).toBeGreaterThan(0);
  }, 60_000);
});
