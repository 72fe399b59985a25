/**
 * The service as a self-hosted Supabase stack's `analytics` (deploy/supabase), measured: time to
 * healthy, RSS idle, then RSS and CPU while Vector's seven sources post 1,000 events a second
 * between them, one batch a source a second as Vector's http sinks do; every event must be kept
 * (`200 Logged!`), and each source's ring buffer is asked afterwards through `logs.all` (Kong's)
 * and the counts. Prints one line per figure, for BENCHMARKS.md beside Logflare's reported 1.8 GB.
 *
 *   npm run bench:supabase -- --rate 1000 --seconds 60
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolArgs } from '../tool-args.ts';
import { recentFixture, VECTOR_SOURCES } from '../../test/fixtures/supabase/vector-events.ts';
import { freePort } from '../services/free-port.ts';
import {
  environment,
  positiveFlag,
  processCpuSeconds,
  processPeakRssBytes,
  processRssBytes,
} from './measure.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '60' },
    idle: { type: 'string', default: '10' },
  },
});
const rate = positiveFlag('rate', values.rate);
const seconds = positiveFlag('seconds', values.seconds);
const idleSeconds = positiveFlag('idle', values.idle);
const TOKEN = 'bench-logflare-public-access-token';
const MIB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number | null) => bytes === null ? 'n/a' : `${(bytes / MIB).toFixed(0)} MiB`;

const secrets = mkdtempSync(join(tmpdir(), 'bench-supabase-'));
writeFileSync(join(secrets, 'public'), TOKEN);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const startedMs = performance.now();
// As deploy/supabase/docker-compose.analytics.yml runs it (the image's command and settings).
const child = spawn(process.execPath, ['service/main.ts', '--role', 'all'], {
  env: {
    PATH: process.env['PATH'],
    HOST: '127.0.0.1',
    PORT: String(port),
    LOGFLARE_PUBLIC_ACCESS_TOKEN_FILE: join(secrets, 'public'),
    INGEST_MAX_BYTES: '12000000',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const pid = child.pid;

let healthyMs: number | null = null;
while (healthyMs === null && performance.now() - startedMs < 30_000) {
  try {
    if ((await fetch(`${base}/health`)).ok) healthyMs = performance.now() - startedMs;
  } catch {
    await sleep(5);
  }
}
if (healthyMs === null) throw new Error('the service did not answer /health within 30 s');
await sleep(idleSeconds * 1000);
const idleRss = processRssBytes(pid);

// One batch a source a second, the rate shared among the seven sources as evenly as it goes.
const perSource = VECTOR_SOURCES.map((_, i) =>
  Math.floor(rate / VECTOR_SOURCES.length) + (i < rate % VECTOR_SOURCES.length ? 1 : 0)
);
let kept = 0;
let refused = 0;
const cpuBefore = processCpuSeconds(pid) ?? 0;
const loadStartMs = performance.now();
for (let second = 0; second < seconds; second++) {
  const tickMs = loadStartMs + second * 1000;
  await Promise.all(VECTOR_SOURCES.map(async (source, i) => {
    const sample = recentFixture(source, Date.now());
    const batch = Array.from({ length: perSource[i] ?? 0 }, (_, n) => sample[n % sample.length]);
    const response = await fetch(`${base}/api/logs?source_name=${source}`, {
      method: 'POST',
      headers: { 'x-api-key': TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify(batch),
    });
    await response.arrayBuffer();
    if (response.status === 200) kept += batch.length;
    else refused += batch.length;
  }));
  const waitMs = tickMs + 1000 - performance.now();
  if (waitMs > 0) await sleep(waitMs);
}
const loadSeconds = (performance.now() - loadStartMs) / 1000;
const cpuSeconds = (processCpuSeconds(pid) ?? 0) - cpuBefore;
const loadRss = processRssBytes(pid);
const peakRss = processPeakRssBytes(pid);
const logs = await fetch(`${base}/api/endpoints/logs.all?project=default`, {
  headers: { 'x-api-key': TOKEN },
});
const rows = ((await logs.json()) as { result: unknown[] }).result.length;
child.kill('SIGTERM');

console.log(`# ${environment()}`);
console.log(`time to healthy (spawn to the first 200 of /health): ${healthyMs.toFixed(0)} ms`);
console.log(`RSS idle (after ${idleSeconds} s): ${mib(idleRss)}`);
console.log(
  `load: ${rate} events/s over ${VECTOR_SOURCES.length} sources for ${loadSeconds.toFixed(1)} s: ` +
    `${kept} kept, ${refused} refused`,
);
console.log(
  `CPU under load: ${(cpuSeconds / loadSeconds * 100).toFixed(1)}% of one core ` +
    `(${(cpuSeconds * 1e6 / Math.max(kept, 1)).toFixed(1)} µs per event)`,
);
console.log(`RSS after the load: ${mib(loadRss)}; peak: ${mib(peakRss)}`);
console.log(`logs.all?project=default answered ${rows} rows`);
if (refused > 0) process.exitCode = 1;
