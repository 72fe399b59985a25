/**
 * Issue 31, item 5, measured: an honest key's `usage.api-counts` pattern queries while four other
 * keys flood new costly patterns. One embedded API process (memory store, RESULT_CACHE_MS=0,
 * five keys) per run, with 100 hosts of 1,024 characters ingested over HTTP (as
 * `pattern-budget.ts`). Then, for `--seconds`:
 *
 * - each flooding key keeps `--flood-concurrency` requests in flight, each a costly pattern never
 *   asked before (`\pL{980}` behind a distinct optional literal: about 1,000 RE2 instructions,
 *   tens of ms per host), sending the next as soon as one is answered, whatever the answer;
 * - the honest key asks a pattern never asked before (a cheap regex, e.g. `^(?:003|x17)ab`: a few
 *   slices of matching, so it needs the gate's turn), one after another, 50 ms apart.
 *
 * Prints the honest key's latency (median, p99, max) and statuses, the flooders' statuses, and
 * the API process's CPU share over the flood (from /proc). Runs alternate between the entries.
 *
 *   npm run bench:hostile-rate                                            # this checkout
 *   node tools/bench/hostile-rate.ts --entry /work/before/service/main.ts --entry service/main.ts --rounds 2
 *
 * Prints the figures and the method; nothing asserts.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { refuseFlag, toolArgs } from '../tool-args.ts';
import { nearestRank } from '../nearest-rank.ts';
import { startApi } from './api/child.ts';
import { environment, positiveFlag } from './measure.ts';

const HONEST_KEY = 'honest-key-0123456789abcdef';
const FLOOD_KEYS = [1, 2, 3, 4].map((i) => `flood-key-${i}-0123456789abcdef`);
const HOSTS = 100;
const HONEST_PAUSE_MS = 50;
/**
 * Honest queries sent in the flood's first seconds are shown apart: each flooding key starts
 * with a whole share of matching (one budget, 1 s), spent before its refusals begin.
 */
const SETTLE_MS = 5_000;

interface Flags {
  readonly entries: readonly string[];
  readonly seconds: number;
  readonly rounds: number;
  readonly floodConcurrency: number;
}

function flags(args: readonly string[]): Flags {
  const { values } = toolArgs(import.meta.url, {
    args: [...args],
    options: {
      entry: { type: 'string', multiple: true, default: ['service/main.ts'] },
      seconds: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '1' },
      'flood-concurrency': { type: 'string', default: '2' },
    },
  });
  const seconds = positiveFlag('seconds', values.seconds);
  if (seconds > 30) refuseFlag(`--seconds must be at most 30: got ${seconds}`);
  return {
    entries: values.entry,
    seconds,
    rounds: positiveFlag('rounds', values.rounds),
    floodConcurrency: positiveFlag('flood-concurrency', values['flood-concurrency']),
  };
}

/** CPU time of process `pid` so far (user + system), in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

function countsOf(statuses: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].toSorted(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
}

async function ask(base: string, key: string, pattern: string): Promise<number> {
  const response = await fetch(
    `${base}/api/endpoints/usage.api-counts?interval=hourly&project=${encodeURIComponent(pattern)}`,
    { headers: { 'X-API-KEY': key } },
  );
  await response.arrayBuffer();
  return response.status;
}

interface RunResult {
  /** When each honest query was sent, in ms since the flood started. */
  readonly honestAtMs: readonly number[];
  readonly honestMs: readonly number[];
  readonly honestStatuses: readonly number[];
  readonly floodStatuses: readonly number[];
  readonly cpuShare: number;
}

async function run(entry: string, options: Flags): Promise<RunResult> {
  const api = await startApi(
    { API_KEYS: [HONEST_KEY, ...FLOOD_KEYS].join(','), STORE: 'memory', RESULT_CACHE_MS: '0' },
    [entry, '--role', 'api'],
  );
  try {
    const lines = Array.from({ length: HOSTS }, (_, i) => {
      const host = `${String(i).padStart(4, '0')}${'ab'.repeat(506)}.example`;
      return JSON.stringify({
        id: `host-${i}`,
        timestamp: Date.now() * 1000 - 60_000_000,
        project: 'benchproject',
        metadata: [{ request: [{ host, path: '/rest/v1/t' }], response: [{ status_code: 200 }] }],
      });
    });
    await fetch(`${api.url}/api/ingest/edge`, {
      method: 'POST',
      headers: { 'X-API-KEY': HONEST_KEY },
      body: lines.join('\n'),
    }).then((response) => response.arrayBuffer());
    const endAt = performance.now() + options.seconds * 1000;
    const cpuBefore = cpuSeconds(api.pid);
    const startedAt = performance.now();
    let sent = 0;
    const floodStatuses: number[] = [];
    const flooder = async (key: number, worker: number) => {
      while (performance.now() < endAt) {
        const pattern = `(?:k${key}w${worker}n${sent++})?\\pL{980}`;
        floodStatuses.push(await ask(api.url, FLOOD_KEYS[key] ?? '', pattern).catch(() => 0));
      }
    };
    const honestAtMs: number[] = [];
    const honestMs: number[] = [];
    const honestStatuses: number[] = [];
    const honest = async () => {
      for (let i = 0; performance.now() < endAt; i++) {
        const started = performance.now();
        honestAtMs.push(started - startedAt);
        const status = await ask(api.url, HONEST_KEY, `^(?:00${i % 10}|x${i})ab`).catch(() => 0);
        honestMs.push(performance.now() - started);
        honestStatuses.push(status);
        await new Promise((resolve) => setTimeout(resolve, HONEST_PAUSE_MS));
      }
    };
    const floods = FLOOD_KEYS.flatMap((_, key) =>
      Array.from({ length: options.floodConcurrency }, (_, worker) => flooder(key, worker))
    );
    await Promise.all([honest(), ...floods]);
    const cpuShare = (cpuSeconds(api.pid) - cpuBefore) / ((performance.now() - startedAt) / 1000);
    return { honestAtMs, honestMs, honestStatuses, floodStatuses, cpuShare };
  } finally {
    await api.stop();
  }
}

function latencies(label: string, values: readonly number[]): string {
  const sorted = values.toSorted((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return `${label}: ${values.length} queries, median ${ms(nearestRank(sorted, 0.5))}, ` +
    `p99 ${ms(nearestRank(sorted, 0.99))}, max ${ms(sorted.at(-1) ?? Number.NaN)}`;
}

function describeRun(entry: string, result: RunResult): string {
  const settled = result.honestMs.filter((_, i) => (result.honestAtMs[i] ?? 0) >= SETTLE_MS);
  return [
    `${entry}:`,
    `  ${latencies('honest key', result.honestMs)}; statuses ${countsOf(result.honestStatuses)}`,
    `  ${latencies(`  sent after the first ${SETTLE_MS / 1000} s`, settled)}`,
    `  flooding keys: ${result.floodStatuses.length} answers; statuses ${
      countsOf(result.floodStatuses)
    }`,
    `  API process CPU: ${(result.cpuShare * 100).toFixed(0)}% of one core over the flood`,
  ].join('\n');
}

const options = flags(process.argv.slice(2));
console.log(environment());
console.log(
  `Method: per run a fresh embedded API (node <entry> --role api, memory store, ` +
    `RESULT_CACHE_MS=0, default limits), ${HOSTS} hosts of 1,024 characters ingested; for ` +
    `${options.seconds} s, 4 keys each keep ${options.floodConcurrency} new costly patterns ` +
    `(\\pL{980} behind a distinct optional literal) in flight, and 1 key asks a new cheap regex ` +
    `every ${HONEST_PAUSE_MS} ms after its previous answer. Entries alternate, ${options.rounds} ` +
    'round(s). Status 0: the connection failed.',
);
for (let round = 1; round <= options.rounds; round++) {
  for (const entry of options.entries) {
    console.log(`\nround ${round}, ${describeRun(entry, await run(entry, options))}`);
  }
}
