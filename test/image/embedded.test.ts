/**
 * The built image (tools/image/test.sh builds it), started as users start it: `--role all`,
 * the embedded store, on a free port of the host's network. It gets healthy, runs as the
 * unprivileged user, holds production dependencies only, serves the explorer and answers the
 * three endpoints as the reference evaluator does after an ingest, and stops cleanly on SIGTERM
 * within the grace period, also while it is still starting (node as PID 1 ignored a signal it
 * had no handler for yet, and the engine killed it after the grace period: tini is PID 1).
 *
 * Prints the image's size and its cold start (from `run` to a healthy `/healthz`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EndpointName } from '../../src/contract/registry.ts';
import { TEST_KEY } from '../api/helpers/app.ts';
import { type Call } from '../api/helpers/http.ts';
import { expectIngestedAnswers } from '../api/helpers/ingested-answers.ts';
import { generatedStream, queriesFor } from '../rollup/fold-and-read.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { until } from '../support/poll.ts';
import { type Container, engineOk, GRACE_SECONDS, IMAGE, startContainer } from './engine.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every package directory under the image's /app/node_modules, as package-lock.json keys. */
const LIST_PACKAGES = `
const { existsSync, readdirSync } = require('node:fs');
const found = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    const path = dir + '/' + entry;
    if (entry.startsWith('@')) { walk(path); continue; }
    found.push(path);
    if (existsSync(path + '/node_modules')) walk(path + '/node_modules');
  }
};
walk('node_modules');
console.log(JSON.stringify(found));
`;

describe(`the image ${IMAGE}, --role all`, () => {
  const name = `image-all-${randomUUID().slice(0, 8)}`;
  const nowUs = Date.now() * 1000;
  const stream = generatedStream(nowUs, 2_000);
  let container: Container | null = null;
  let url = '';
  let coldStartSeconds = 0;
  const call: Call = (path, init = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { 'X-API-KEY': TEST_KEY, ...init.headers } });

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    container = await startContainer(name, {
      PORT: String(port),
      API_KEYS: TEST_KEY,
      LOG_LEVEL: 'info',
    }, []);
    await until('/healthz of the container', 120_000, async () => {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      return response.status === 200 ? true : null;
    });
    coldStartSeconds = (performance.now() - started) / 1000;
  }, 180_000);

  afterAll(async () => {
    await container?.remove();
    const bytes = Number(await engineOk(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
    console.log(
      `image: ${IMAGE} is ${(bytes / 1e6).toFixed(0)} MB; cold start to a healthy /healthz ` +
        `${coldStartSeconds.toFixed(1)} s`,
    );
  }, 60_000);

  test("the image's own HEALTHCHECK reports it healthy", async () => {
    const healthcheck = await engineOk([
      'image',
      'inspect',
      '--format',
      '{{json .Config.Healthcheck.Test}}',
      IMAGE,
    ]);
    expect(JSON.parse(healthcheck)).toEqual(['CMD', 'node', 'service/healthcheck.ts']);
    expect(await container?.healthy()).toBe(true);
  });

  test('the service runs as the unprivileged user node, under tini', async () => {
    // Each process of the container: its command line, and its real, effective, saved and
    // file-system user ids.
    const listing = await engineOk([
      'exec',
      name,
      'sh',
      '-c',
      'for p in /proc/[0-9]*; do echo "$(tr "\\0" " " <"$p/cmdline")|$(grep "^Uid:" "$p/status")"; done',
    ]);
    const processes = listing.split('\n').filter((line) => line.includes('|Uid:'));
    expect(processes.filter((line) => /^node .*service\/main\.ts/.test(line)), listing)
      .toHaveLength(1);
    expect(processes.filter((line) => line.startsWith('tini ')), listing).toHaveLength(1);
    for (const line of processes) expect(line).toMatch(/\|Uid:\s+1000\s+1000\s+1000\s+1000$/);
    expect((await engineOk(['exec', name, 'id', '-un'])).trim()).toBe('node');
  });

  test(
    "the image's node_modules holds package.json's dependencies and nothing for development",
    async () => {
      const listed = await engineOk([
        'run',
        '--rm',
        '--network',
        'none',
        '--entrypoint',
        'node',
        IMAGE,
        '-e',
        LIST_PACKAGES,
      ]);
      const installed = JSON.parse(listed) as string[];
      const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { dev?: boolean }>;
      };
      const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      for (const dependency of Object.keys(manifest.dependencies)) {
        expect(installed).toContain(`node_modules/${dependency}`);
      }
      // A development dependency may also be a production one's dependency (tdigest, of
      // prom-client): the lock file marks which packages only development needs.
      const developmentOnly = Object.keys(manifest.devDependencies)
        .filter((dependency) => lock.packages[`node_modules/${dependency}`]?.dev === true);
      expect(developmentOnly).toEqual(expect.arrayContaining(['typescript', 'vitest', 'deno']));
      for (const dependency of developmentOnly) {
        expect(installed).not.toContain(`node_modules/${dependency}`);
      }
      for (const path of installed) {
        expect(lock.packages[path], `${path} is not in package-lock.json`).toBeDefined();
        expect(lock.packages[path]?.dev, `${path} is a development package`).not.toBe(true);
      }
    },
    60_000,
  );

  test('serves the explorer, its page and files', async () => {
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const files = [...html.matchAll(/(?:src|href)="(\/explorer\/[^"]+)"/g)].map((m) => m[1]);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const answer = await fetch(`${url}${file}`);
      expect(answer.status, file).toBe(200);
      expect((await answer.arrayBuffer()).byteLength, file).toBeGreaterThan(100);
    }
  });

  test('ingested over HTTP, the three endpoints answer what the reference says', async () => {
    // One query in three of each endpoint: a representative subset, every path form.
    const queries = queriesFor(stream.events, nowUs).filter((_, i) => i % 3 === 0) as [
      EndpointName,
      string,
    ][];
    expect(new Set(queries.map(([endpoint]) => endpoint)).size).toBe(3);
    await expectIngestedAnswers(call, stream, queries);
  }, 180_000);

  test(`SIGTERM stops it cleanly within the grace period (${GRACE_SECONDS} s)`, async () => {
    const stopped = await container?.stop();
    console.log(`image: --role all stopped in ${stopped?.seconds.toFixed(1)} s`);
    // After the grace period the engine kills it (exit code 137).
    expect(stopped?.exitCode).toBe(0);
    expect(await container?.logs()).toContain('"msg":"stopping"');
  }, 120_000);

  test('SIGTERM while it is still starting stops it cleanly too', async () => {
    const starting = await startContainer(`${name}-starting`, {
      PORT: String(await freePort()),
      API_KEYS: TEST_KEY,
    }, []);
    try {
      const stopped = await starting.stop();
      expect(stopped.exitCode, await starting.logs()).toBe(0);
    } finally {
      await starting.remove();
    }
  }, 120_000);
});
