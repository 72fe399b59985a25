/**
 * Issue 18, item 2, measured: how long an adversarial `usage.api-counts` pattern takes against
 * long registered hosts, and how long `/healthz` waits meanwhile. One embedded API process
 * (`node service/main.ts --role api`, memory store) per scenario; this process ingests the hosts
 * over HTTP, then sends the pattern and, while it runs, one `/healthz` after another (each sent
 * 10 ms after the previous answer), over loopback.
 *
 *   node tools/bench/pattern-budget.ts                  # 22 url hosts of 8,174 characters; 100 hosts of 1 KB
 *   node tools/bench/pattern-budget.ts --hosts 300 --concurrent 4
 *   node tools/bench/pattern-budget.ts --deno               # the API on Deno (`deno task api`)
 *   node tools/bench/pattern-budget.ts --entry OTHER/service/main.ts   # another checkout
 *
 * Prints the figures and the method; nothing asserts.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import process from 'node:process';
import { toolArgs } from '../tool-args.ts';
import { type ApiProcess, startApi } from './api/child.ts';
import { environment, positiveFlag } from './measure.ts';

const KEY = 'bench-key-0123456789abcdef';
/** Unicode letter classes repeated to 252 of the 256 characters a pattern may have. */
const ADVERSARIAL = '\\pL{1000}'.repeat(28);
/** The same kind of pattern, at 1,000 RE2 instructions: the largest program accepted. */
const COSTLY = '\\pL{998}';

interface Flags {
  /** Hosts of 1,024 characters (the limit) registered through `request.host`. */
  hosts: number;
  /** Hosts of 8,174 characters sent through `request.url` (the probe). */
  urlHosts: number;
  /** Distinct patterns of one kind sent at once. */
  concurrent: number;
  /** Serve the API with Deno (`deno task api`) instead of Node. */
  deno: boolean;
  /** The API's entry point (another checkout's, to measure a version before). */
  entry: string;
}

function flags(args: readonly string[]): Flags {
  const { values } = toolArgs(import.meta.url, {
    args: [...args],
    options: {
      hosts: { type: 'string', default: '100' },
      'url-hosts': { type: 'string', default: '22' },
      concurrent: { type: 'string', default: '4' },
      deno: { type: 'boolean', default: false },
      entry: { type: 'string', default: 'service/main.ts' },
    },
  });
  return {
    hosts: positiveFlag('hosts', values.hosts),
    urlHosts: positiveFlag('url-hosts', values['url-hosts']),
    concurrent: positiveFlag('concurrent', values.concurrent),
    deno: values.deno,
    entry: values.entry,
  };
}

interface Timed {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
}

async function timedGet(url: string): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, { headers: { 'X-API-KEY': KEY } });
  const body = await response.text();
  return { status: response.status, ms: performance.now() - started, body };
}

function edgeLine(id: string, request: Record<string, string>): string {
  return JSON.stringify({
    id,
    timestamp: Date.now() * 1000 - 60_000_000,
    project: 'benchproject',
    metadata: [{ request: [{ path: '/rest/v1/t', ...request }], response: [{ status_code: 200 }] }],
  });
}

async function ingest(base: string, lines: readonly string[]): Promise<string> {
  const response = await fetch(`${base}/api/ingest/edge`, {
    method: 'POST',
    headers: { 'X-API-KEY': KEY },
    body: lines.join('\n'),
  });
  const answer = JSON.parse(await response.text()) as { accepted: number; rejected: number };
  return `${answer.accepted} accepted, ${answer.rejected} rejected`;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

function describeWaits(waits: readonly number[]): string {
  const sorted = waits.toSorted((a, b) => a - b);
  return `${waits.length} answered, median ${quantile(sorted, 0.5).toFixed(1)} ms, max ${
    (sorted.at(-1) ?? NaN).toFixed(1)
  } ms`;
}

/** Sends `patterns` at once; samples `/healthz` until every one is answered. */
async function heavy(base: string, patterns: readonly string[]): Promise<void> {
  let running = true;
  const answers = Promise.all(
    patterns.map((pattern) =>
      timedGet(
        `${base}/api/endpoints/usage.api-counts?interval=hourly&project=${
          encodeURIComponent(pattern)
        }`,
      )
    ),
  ).finally(() => (running = false));
  const waits: number[] = [];
  let failed = 0;
  await new Promise((resolve) => setTimeout(resolve, 20));
  while (running) {
    const started = performance.now();
    try {
      waits.push((await timedGet(`${base}/healthz`)).ms);
    } catch (error) {
      // A keep-alive connection the frozen server closes as soon as it runs again: counted.
      failed++;
      console.log(
        `    /healthz failed after ${(performance.now() - started).toFixed(0)} ms: ${error}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const answer of await answers) {
    const error = answer.status === 200
      ? ''
      : ` ${
        (JSON.parse(answer.body) as { error: { message: string } }).error.message.slice(0, 90)
      }…`;
    console.log(`    pattern: ${answer.status} in ${answer.ms.toFixed(0)} ms${error}`);
  }
  console.log(`    /healthz meanwhile: ${describeWaits(waits)}, ${failed} failed`);
}

/** `deno task api` (the same source on Deno), started as {@link startApi} starts Node's. */
async function startDenoApi(env: Readonly<Record<string, string>>): Promise<ApiProcess> {
  const child = spawn('node_modules/.bin/deno', ['task', 'api'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Uint8Array) => (output += new TextDecoder().decode(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The task runs deno as a child of its own: stop the whole process group.
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
  };
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    if (url !== undefined) return { url, pid: child.pid ?? 0, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`deno task api did not start:\n${output}`);
}

async function scenario(title: string, lines: readonly string[], options: Flags) {
  // The gate and the budget alone: one key's share of matching would refuse the repeats (429);
  // rate limits and shares are measured by tools/bench/hostile-rate.ts.
  const env = { API_KEYS: KEY, STORE: 'memory', RESULT_CACHE_MS: '0', RATE_LIMIT: 'off' };
  const api =
    await (options.deno ? startDenoApi(env) : startApi(env, [options.entry, '--role', 'api']));
  const { concurrent } = options;
  try {
    console.log(`\n${title}`);
    console.log(`  ingest: ${await ingest(api.url, lines)}`);
    const idle: number[] = [];
    for (let i = 0; i < 50; i++) idle.push((await timedGet(`${api.url}/healthz`)).ms);
    console.log(`  /healthz idle: ${describeWaits(idle)}`);
    const kinds = [
      // Variant 0 is the pattern itself; the others differ in the last count only.
      [
        '\\pL{1000} x 28 (28,002 instructions)',
        (i: number) => `${ADVERSARIAL.slice(0, -6)}{${1000 - i}}`,
      ],
      ['\\pL{998} (1,000 instructions)', (i: number) => `${COSTLY.slice(0, -5)}{${998 - i}}`],
    ] as const;
    for (const [label, variant] of kinds) {
      console.log(`  ${label}:`);
      await heavy(api.url, [variant(0)]);
      console.log('  the same pattern again:');
      await heavy(api.url, [variant(0)]);
      if (concurrent > 1) {
        console.log(`  ${concurrent} distinct patterns of that kind at once:`);
        await heavy(api.url, Array.from({ length: concurrent }, (_, i) => variant(i + 1)));
      }
    }
  } finally {
    await api.stop();
  }
}

const options = flags(process.argv.slice(2));
console.log(environment());
console.log(options.deno ? 'API: deno task api' : `API: node ${options.entry} --role api`);
console.log(
  `Method: a fresh embedded API (memory store, RESULT_CACHE_MS=0) per scenario; hosts ingested ` +
    'over HTTP; each pattern sent with interval=hourly, and /healthz one after another (10 ms ' +
    'apart) while it runs.',
);
await scenario(
  `${options.urlHosts} hosts of 8,174 characters in request.url (as long as a url allows; the issue's probe)`,
  Array.from({ length: options.urlHosts }, (_, i) => {
    const host = `${String(i).padStart(4, '0')}${'ab'.repeat(4_081)}.example`;
    return edgeLine(`url-${i}`, { url: `https://${host}/rest/v1/t` });
  }),
  options,
);
await scenario(
  `${options.hosts} hosts of 1,024 characters (the limit) in request.host`,
  Array.from({ length: options.hosts }, (_, i) => {
    const host = `${String(i).padStart(4, '0')}${'ab'.repeat(506)}.example`;
    return edgeLine(`host-${i}`, { host });
  }),
  options,
);
