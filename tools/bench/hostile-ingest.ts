/**
 * Issue 18, items 3 and 4, measured: what a hostile ingest body costs one API process. The body
 * is 10 MB of a JSON array of five million tiny items (`[0,0,…]`), within the byte limit. One
 * embedded API process (memory store) is started; this process sends the body (once, then four at
 * once) while it asks `/healthz` every 10 ms, and reads the API's memory from /proc.
 *
 *   node tools/bench/hostile-ingest.ts                       # this checkout
 *   node tools/bench/hostile-ingest.ts --entry OTHER/api/main.ts   # another checkout, to compare
 *
 * Prints the figures and the method; nothing asserts.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { startApi } from './api/child.ts';
import { environment } from './measure.ts';
import { helpFirst } from '../tool-args.ts';

helpFirst(import.meta.url);

const KEY = 'bench-key-0123456789abcdef';

/** A /proc/<pid>/status field in MB (VmRSS: now; VmHWM: the peak so far). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** Asks `/healthz` every 10 ms until `stop` resolves; the longest wait for an answer, in ms. */
async function longestHealthWait(url: string, stop: Promise<unknown>): Promise<number> {
  let done = false;
  void stop.finally(() => (done = true));
  let longest = 0;
  while (!done) {
    const started = performance.now();
    await fetch(`${url}/healthz`).then((response) => response.arrayBuffer());
    longest = Math.max(longest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return longest;
}

async function scenario(url: string, pid: number, body: string, copies: number): Promise<string> {
  const before = memoryMb(pid, 'VmRSS');
  const started = performance.now();
  const sends = Promise.all(
    Array.from({ length: copies }, () =>
      fetch(`${url}/api/ingest/edge`, {
        method: 'POST',
        headers: { 'X-API-KEY': KEY },
        body,
      }).then(async (response) => `${response.status} ${(await response.text()).slice(0, 90)}`)),
  );
  const [answers, healthWait] = await Promise.all([sends, longestHealthWait(url, sends)]);
  const elapsed = performance.now() - started;
  return [
    `${copies} at once: answered in ${elapsed.toFixed(0)} ms; longest /healthz wait ` +
    `${healthWait.toFixed(0)} ms; RSS ${before.toFixed(0)} MB before, peak ` +
    `${memoryMb(pid, 'VmHWM').toFixed(0)} MB`,
    `  answer: ${answers[0]}`,
  ].join('\n');
}

const entryAt = process.argv.indexOf('--entry');
const entry = entryAt === -1
  ? ['service/main.ts', '--role', 'api']
  : [process.argv[entryAt + 1] ?? '', '--role', 'api'];
const body = `[${'0,'.repeat(4_999_999)}0]`;
console.log(`hostile ingest: a ${(body.length / 1e6).toFixed(1)} MB JSON array of 5,000,000 items`);
console.log(`API: node ${entry.join(' ')} (memory store, INGEST_MAX_BYTES default 10 MiB)`);
console.log(environment());
for (const copies of [1, 4]) {
  const api = await startApi({ API_KEYS: KEY, STORE: 'memory' }, entry);
  try {
    console.log(await scenario(api.url, api.pid, body, copies));
  } finally {
    await api.stop();
  }
}
