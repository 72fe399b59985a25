/**
 * Issue 31, measured: what two connection attacks cost one embedded API process (memory store),
 * and whether other clients are still served meanwhile.
 *
 * - idle: 1,100 connections from 127.0.0.2 that send nothing and never close their side, held
 *   for 6 s (the header timeout is set to 2 s for the run, so it spans before and after the 408s);
 * - slow readers: 100 `logs.all` entries of 120 KiB (a 12 MB answer), then 60 connections each
 *   asking it with a different `iso_timestamp_start` (no shared answer) and never reading, held
 *   for 12 s (the default write timeout is 10 s).
 *
 * Meanwhile, from 127.0.0.1, this process asks `/healthz` and an honest `invocation-stats` every
 * 50 ms, each on a fresh connection (a new client, as a load balancer's check is; a kept-alive one
 * would hide a full connection table) and given 1 s to answer; and reads the API's peak RSS
 * (VmHWM) from /proc. One fresh API process per attack.
 *
 *   node tools/bench/hostile-connections.ts                           # this checkout
 *   node tools/bench/hostile-connections.ts --entry OTHER/service/main.ts   # another checkout
 *   node tools/bench/hostile-connections.ts --env HTTP_MAX_CONNECTIONS_PER_ADDRESS=0   # more
 *                                             settings of the API, repeatable
 *
 * Prints the figures and the method; nothing asserts.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import process from 'node:process';
import { startApi } from './api/child.ts';
import { environment } from './measure.ts';
import { helpFirst } from '../tool-args.ts';

helpFirst(import.meta.url);

const KEY = 'bench-key-0123456789abcdef';
const PROJECT = 'hostileconnections';

/** A /proc/<pid>/status field in MB (VmRSS: now; VmHWM: the peak so far). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `GET path` on a fresh connection: the status (0: refused, reset or no answer in 1 s) and ms. */
function ask(port: number, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    let received = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(cut);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, ms: performance.now() - started });
    };
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.1' }, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${KEY}\r\nConnection: close\r\n\r\n`,
      );
    });
    const cut = setTimeout(finish, 1_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

interface Probe {
  answered: number[];
  failed: number;
}

/** Asks `path` every 50 ms until `stop` resolves. */
async function probe(port: number, path: string, stop: Promise<void>): Promise<Probe> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const result: Probe = { answered: [], failed: 0 };
  while (!stopped) {
    const { status, ms } = await ask(port, path);
    if (status >= 200 && status < 500) result.answered.push(ms);
    else result.failed++;
    await sleep(50);
  }
  return result;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

function describe(name: string, result: Probe): string {
  const total = result.answered.length + result.failed;
  return `${name}: ${result.answered.length}/${total} answered within 1 s, p50 ` +
    `${percentile(result.answered, 0.5).toFixed(1)} ms, p99 ` +
    `${percentile(result.answered, 0.99).toFixed(1)} ms`;
}

/** Runs `attack` for `holdMs` while probing; prints the figures. */
async function underAttack(
  port: number,
  pid: number,
  holdMs: number,
  attack: () => Promise<() => string>,
): Promise<void> {
  const rssBefore = memoryMb(pid, 'VmRSS');
  const report = await attack();
  const stop = sleep(holdMs);
  const honest = `/api/endpoints/functions.invocation-stats?project=${PROJECT}&interval=1hr`;
  const [health, requests] = await Promise.all([
    probe(port, '/healthz', stop),
    probe(port, honest, stop),
  ]);
  console.log(`  ${describe('/healthz', health)}`);
  console.log(`  ${describe('invocation-stats', requests)}`);
  console.log(
    `  API RSS ${rssBefore.toFixed(0)} MB before, peak ${memoryMb(pid, 'VmHWM').toFixed(0)} MB, ` +
      `${memoryMb(pid, 'VmRSS').toFixed(0)} MB at the end; ${report()}`,
  );
}

/** 1,100 connections that send nothing; says how many the server had closed by the end. */
async function idleAttack(port: number): Promise<() => string> {
  const sockets: net.Socket[] = [];
  let ended = 0;
  for (let opened = 0; opened < 1_100; opened += 100) {
    await Promise.all(Array.from({ length: 100 }, () =>
      new Promise<void>((resolve) => {
        const socket = net.connect({
          port,
          host: '127.0.0.1',
          localAddress: '127.0.0.2',
          allowHalfOpen: true,
        });
        sockets.push(socket);
        socket.once('connect', () => resolve());
        // The server's FIN: after a 408, or at once when refused (a refused one may never connect).
        socket.once('end', () => ended++);
        socket.once('close', () => resolve());
        socket.on('error', () => {});
        // Read (and drop) what comes, so that the FIN after it is seen.
        socket.resume();
      })));
  }
  return () => {
    for (const socket of sockets) socket.destroy();
    return `${ended} of 1,100 attacking connections got the server's FIN by the end (a 408 ` +
      'or a refusal; whether the server also released the socket shows in the probes)';
  };
}

/** 60 `logs.all` requests that never read their answer. */
async function slowReaders(url: string, port: number): Promise<() => string> {
  const nowUs = Date.now() * 1000;
  for (let part = 0; part < 2; part++) {
    const lines = Array.from({ length: 50 }, (_, i) =>
      JSON.stringify({
        id: `e${part * 50 + i}`,
        timestamp: nowUs - 60_000_000 + part * 50 + i,
        project: PROJECT,
        event_message: 'GET | 200',
        metadata: [{ note: 'x'.repeat(120_000) }],
      }));
    await fetch(`${url}/api/ingest/edge`, {
      method: 'POST',
      headers: { 'X-API-KEY': KEY },
      body: lines.join('\n'),
    }).then((response) => response.arrayBuffer());
  }
  const sockets = Array.from({ length: 60 }, (_, i) => {
    const start = new Date(Date.now() - 3_600_000 - i * 1000).toISOString();
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `GET /api/endpoints/logs.all?project=${PROJECT}&project_tier=FREE&` +
          `iso_timestamp_start=${start} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${KEY}\r\n\r\n`,
      );
    });
    socket.pause();
    socket.on('error', () => {});
    return socket;
  });
  return () => {
    for (const socket of sockets) socket.destroy();
    return 'slow readers cut by the server: slow_reader below';
  };
}

async function refusedLine(url: string): Promise<string> {
  const text = await fetch(`${url}/metrics`).then((response) => response.text(), () => '');
  const lines = text.split('\n').filter((line) => line.startsWith('http_refused_total{'));
  return lines.length === 0 ? 'no http_refused_total' : lines.join(', ');
}

const entryAt = process.argv.indexOf('--entry');
const entry = entryAt === -1
  ? ['service/main.ts', '--role', 'api']
  : [process.argv[entryAt + 1] ?? '', '--role', 'api'];
console.log('hostile connections: idle connections and slow readers against one API process');
console.log(`API: node ${entry.join(' ')}`);
console.log(environment());
const env: Record<string, string> = {
  API_KEYS: KEY,
  STORE: 'memory',
  HTTP_HEADERS_TIMEOUT_MS: '2000',
};
process.argv.forEach((arg, i) => {
  const setting = arg === '--env' ? /^([A-Z_]+)=(.*)$/.exec(process.argv[i + 1] ?? '') : null;
  if (setting?.[1] !== undefined) env[setting[1]] = setting[2] ?? '';
});
console.log(`environment of the API: ${JSON.stringify({ ...env, API_KEYS: '<bench key>' })}`);

{
  const api = await startApi(env, entry);
  try {
    console.log('idle: 1,100 connections from 127.0.0.2 sending nothing, held 6 s');
    const port = Number(new URL(api.url).port);
    await underAttack(port, api.pid, 6_000, () => idleAttack(port));
    console.log(`  ${await refusedLine(api.url)}`);
  } finally {
    await api.stop();
  }
}
{
  const api = await startApi(env, entry);
  try {
    console.log(
      'slow readers: 60 logs.all of 12 MB, each a different answer, never read, held 12 s',
    );
    const port = Number(new URL(api.url).port);
    await underAttack(port, api.pid, 12_000, () => slowReaders(api.url, port));
    console.log(`  ${await refusedLine(api.url)}`);
  } finally {
    await api.stop();
  }
}
