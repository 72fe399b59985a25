/**
 * Issue 31, measured: what one API key can make one embedded API process (memory store) hold and
 * how busy it can keep it.
 *
 *   (a) tenant memory: 10 ingest bodies of 10,000 edge events, each event for a new project
 *       (100,000 projects), sent one after the other: what the API answered to each, its RSS
 *       before and its peak (VmHWM from /proc). Run with the defaults, then with the per-key
 *       project bound lifted, so that only the memory budget stands.
 *   (b) host registry churn: 100,000 hosts registered (1,000 projects of 100 hosts each, sent in
 *       bodies of 16-host events; memory budget raised to 1 GiB), then ROUNDS rounds of a 1-event ingest followed by a
 *       `usage.api-counts` read of one project; `/healthz` asked every 10 ms all along. Printed:
 *       the read's median and p99, `/healthz`'s p99, and the explorer's project list median.
 *
 *   node tools/bench/hostile-tenants.ts [--only a|b] [--rounds 200]
 *   node tools/bench/hostile-tenants.ts --entry OTHER/service/main.ts   # another checkout
 *
 * Loopback only; prints the figures and the method; nothing asserts.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { toolArgs } from '../tool-args.ts';
import { type ApiProcess, startApi } from './api/child.ts';
import { environment } from './measure.ts';

const KEY = 'bench-key-0123456789abcdef';

const { values } = toolArgs(import.meta.url, {
  options: {
    entry: { type: 'string' },
    only: { type: 'string' },
    rounds: { type: 'string', default: '200' },
  },
});
const entry = [values.entry ?? 'service/main.ts', '--role', 'api'];
const ROUNDS = Number(values.rounds);

/** A /proc/<pid>/status field in MB (VmRSS: now; VmHWM: the peak so far). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

function edge(id: string, project: string, hosts: readonly string[], nowMs: number): string {
  return JSON.stringify({
    id,
    timestamp: (nowMs - 1_000) * 1000,
    project,
    event_message: 'GET | 200 | /rest/v1/todos',
    metadata: [{
      request: hosts.map((host) => ({ method: 'GET', host, path: '/rest/v1/todos' })),
      response: [{ status_code: 200 }],
    }],
  });
}

/** A 20-letter project ref of `n`. */
function ref(prefix: string, n: number): string {
  return `${prefix}${n.toString(36).padStart(20 - prefix.length, '0')}`;
}

async function post(api: ApiProcess, body: string): Promise<string> {
  const response = await fetch(`${api.url}/api/ingest/edge`, {
    method: 'POST',
    headers: { 'X-API-KEY': KEY },
    body,
  });
  const text = await response.text();
  try {
    const answer = JSON.parse(text) as {
      accepted?: number;
      rejected?: number;
      error?: { code: string };
    };
    return answer.error === undefined
      ? `${response.status} accepted ${answer.accepted} rejected ${answer.rejected}`
      : `${response.status} ${answer.error.code}`;
  } catch {
    return `${response.status} ${text.slice(0, 80)}`;
  }
}

async function tenantMemory(env: Record<string, string>, label: string): Promise<void> {
  const api = await startApi({ API_KEYS: KEY, STORE: 'memory', ...env }, entry);
  try {
    const before = memoryMb(api.pid, 'VmRSS');
    const started = performance.now();
    const answers: string[] = [];
    for (let body = 0; body < 10; body++) {
      const nowMs = Date.now();
      const lines = Array.from({ length: 10_000 }, (_, i) => {
        const project = ref('t', body * 10_000 + i);
        return edge(`e${body}-${i}`, project, [`${project}.supabase.co`], nowMs);
      });
      answers.push(await post(api, lines.join('\n')));
    }
    const elapsed = (performance.now() - started) / 1000;
    const tally = new Map<string, number>();
    for (const answer of answers) tally.set(answer, (tally.get(answer) ?? 0) + 1);
    console.log(
      `(a) ${label}: 10 bodies in ${elapsed.toFixed(1)} s; RSS ${before.toFixed(0)} MB before, ` +
        `peak ${memoryMb(api.pid, 'VmHWM').toFixed(0)} MB, after ${
          memoryMb(api.pid, 'VmRSS').toFixed(0)
        } MB`,
    );
    console.log(`    answers: ${[...tally].map(([answer, n]) => `${n} x ${answer}`).join('; ')}`);
  } finally {
    await api.stop();
  }
}

/** Asks `/healthz` every 10 ms until `stop` resolves; every wait, in ms. */
async function healthWaits(url: string, stop: Promise<unknown>): Promise<number[]> {
  let done = false;
  void stop.finally(() => (done = true));
  const waits: number[] = [];
  while (!done) {
    const started = performance.now();
    await fetch(`${url}/healthz`).then((response) => response.arrayBuffer());
    waits.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return waits;
}

async function registryChurn(): Promise<void> {
  // 100,000 hosts' rollups are more than the default memory budget holds (a 507 at about 67,000).
  const api = await startApi(
    { API_KEYS: KEY, STORE: 'memory', MEMORY_STORE_MAX_BYTES: String(1024 ** 3) },
    entry,
  );
  try {
    const nowMs = Date.now();
    let lines: string[] = [];
    const registered: string[] = [];
    for (let p = 0; p < 1_000; p++) {
      const project = ref('r', p);
      const hosts = Array.from({ length: 100 }, (_, h) => `h${h}.${project}.example.com`);
      for (let at = 0; at < hosts.length; at += 16) {
        lines.push(edge(`r${p}-${at}`, project, hosts.slice(at, at + 16), nowMs));
      }
      if (lines.length >= 3_000) {
        registered.push(await post(api, lines.join('\n')));
        lines = [];
      }
    }
    if (lines.length > 0) registered.push(await post(api, lines.join('\n')));
    const project = ref('r', 500);
    const readUrl = `${api.url}/api/endpoints/usage.api-counts?project=${project}&interval=hourly`;
    const headers = { 'X-API-KEY': KEY };
    // Warm: the first read loads the registry whatever the version.
    await fetch(readUrl, { headers }).then((response) => response.arrayBuffer());
    const reads: number[] = [];
    const rounds = (async () => {
      for (let round = 0; round < ROUNDS; round++) {
        await post(
          api,
          edge(`c${round}`, project, [`h${round % 100}.${project}.example.com`], nowMs),
        );
        const started = performance.now();
        const response = await fetch(readUrl, { headers });
        await response.arrayBuffer();
        reads.push(performance.now() - started);
      }
    })();
    const waits = await healthWaits(api.url, rounds);
    await rounds;
    const lists: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await fetch(`${api.url}/api/explorer/projects`, { headers }).then((r) => r.arrayBuffer());
      lists.push(performance.now() - started);
    }
    reads.sort((a, b) => a - b);
    waits.sort((a, b) => a - b);
    lists.sort((a, b) => a - b);
    console.log(
      `(b) 100,000 hosts registered (${registered.join('; ')}); ${ROUNDS} rounds of a 1-event ` +
        `ingest then a read: read median ${ms(quantile(reads, 0.5))}, p99 ${
          ms(quantile(reads, 0.99))
        }; /healthz p99 ${ms(quantile(waits, 0.99))} (${waits.length} asked); ` +
        `/api/explorer/projects median ${ms(quantile(lists, 0.5))} (50 calls after)`,
    );
  } finally {
    await api.stop();
  }
}

console.log(`hostile tenants: node ${entry.join(' ')} (memory store); ${environment()}`);
if (values.only === undefined || values.only === 'a') {
  await tenantMemory({}, 'defaults');
  await tenantMemory({ INGEST_MAX_PROJECTS_PER_KEY_PER_DAY: '100000000' }, 'per-key bound lifted');
}
if (values.only === undefined || values.only === 'b') await registryChurn();
