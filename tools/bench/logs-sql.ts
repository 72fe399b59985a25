/**
 * What Studio's SQL costs on the sandboxed `logs.all` (`LOGS_ALL_SQL=sandboxed`, issue 50) at full
 * stores: every source's ring buffer holds `--rows` events (default 10,000, the default
 * `RECENT_LOGS_CAPACITY`), all inside Studio's default range (the last hour), posted through
 * Logflare's ingest route of an in-process API on the embedded store. For each query shape Studio
 * sends: the API's CPU per answer (process CPU, the engine's thread included, over `--runs`
 * answers one after another, through `fetch`), the time of its store read alone, and the time of
 * the engine alone (rows loaded, query run: on its own thread in the API, timed here in this one). Then the process's RSS: before the parser and the engine are
 * loaded, after, and after the queries. Prints the figures; nothing asserts.
 *
 *   npm run bench:logs-sql [-- --rows 10000 --runs 10]
 *
 * @module
 */
import process from 'node:process';
import { toolArgs } from '../tool-args.ts';
import { createApp } from '../../api/app.ts';
import { directSink } from '../../api/ingest/direct-sink.ts';
import { createMetrics } from '../../api/metrics.ts';
import { createLogger } from '../../src/logger.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { parseQuery } from '../../src/logs-sql/parse-sql.ts';
import { runPlan } from '../../src/logs-sql/engine.ts';
import { planQuery } from '../../src/logs-sql/translate.ts';
import { readSourceRows } from '../../src/endpoints/read/source-logs.ts';
import { SANDBOX_TABLES } from '../../src/logs-sql/sandbox-tables.ts';
import {
  chartQuery,
  countQuery,
  defaultQuery,
  EXPLORER_TEMPLATES,
  singleLogQuery,
} from '../../test/fixtures/supabase/studio-sql.ts';
import { posted, SOURCE_OF, studioEvents } from '../../test/logs-sql/studio-events.ts';
import { environment } from './measure.ts';

const { values } = toolArgs(import.meta.url, {
  options: { rows: { type: 'string', default: '10000' }, runs: { type: 'string', default: '10' } },
});
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);
const KEY = 'bench-key-0123456789abcdef';
const mib = (bytes: number) => (bytes / 1_048_576).toFixed(0);

const nowUs = Date.now() * 1000;
const rssStart = process.memoryUsage().rss;

const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
const app = createApp({
  store,
  nowUs: () => nowUs,
  settings: {
    apiKeys: [KEY],
    endpointIds: {},
    ingestMaxBytes: 64 * 1024 * 1024,
    ingestMaxItems: 20_000,
    maxFutureSkewUs: 300_000_000,
    resultCacheMs: 0,
    logsAllSql: 'sandboxed',
    recentLogsCapacity: ROWS,
  },
  metrics: createMetrics(),
  logger: createLogger('silent'),
  sink: directSink({ store, nowUs: () => nowUs, recentLogsCapacity: ROWS }),
});
const call = (path: string, init: RequestInit = {}) =>
  app.fetch(
    new Request(`http://bench${path}`, { ...init, headers: { 'X-API-KEY': KEY, ...init.headers } }),
  );

// Full stores: ROWS events of every table within the last 50 minutes.
const events = studioEvents(
  nowUs - 1_000_000,
  ROWS,
  Math.floor(3_000_000_000 / ROWS / 1000) * 1000,
);
let textBytes = 0;
for (const [table, source] of Object.entries(SOURCE_OF)) {
  const bodies = events.filter((e) => e.table === table).map(posted);
  for (let i = 0; i < bodies.length; i += 5_000) {
    const body = JSON.stringify(bodies.slice(i, i + 5_000));
    textBytes += body.length;
    const response = await call(`/api/logs?source_name=${source}`, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json' },
    });
    if (response.status !== 200) {
      throw new Error(`ingest ${response.status}: ${await response.text()}`);
    }
  }
}
const rssFilled = process.memoryUsage().rss;

const hourAgo = new Date(Math.floor(nowUs / 1000) - 3_600_000).toISOString();
const SHAPES: [string, string][] = [
  ['log page, edge_logs', defaultQuery('edge_logs')],
  [
    'log page, edge_logs, search and filters',
    defaultQuery('edge_logs', {
      search_query: 'rror',
      'status_code.error': true,
      'method.get': true,
    }),
  ],
  ['log page, postgres_logs', defaultQuery('postgres_logs')],
  ['log page, auth_logs, severity', defaultQuery('auth_logs', { 'severity.error': true })],
  ['badge count, auth_logs', countQuery('auth_logs')],
  ['chart by minute, edge_logs', chartQuery('edge_logs', 'minute', hourAgo)],
  ['chart by hour, auth_logs', chartQuery('auth_logs', 'hour', hourAgo)],
  ['single log, edge_logs', singleLogQuery('edge_logs', 'edge_logs-17')],
  ['Explorer: Top Paths', EXPLORER_TEMPLATES['Top Paths']],
  ['Explorer: Commits By User', EXPLORER_TEMPLATES['Commits By User']],
];

console.log(`logs.all with Studio's SQL, ${ROWS.toLocaleString('en-US')} events per source`);
console.log(environment());
// The first query starts the engine's thread (the parser and SQLite loaded there).
const first = await call(
  `/api/endpoints/query/logs.all?project=default&sql=${
    encodeURIComponent('select 1 as x from auth_logs limit 1')
  }`,
);
if (first.status !== 200) throw new Error(`first query: ${first.status} ${await first.text()}`);
const rssEngine = process.memoryUsage().rss;
console.log(
  `posted ${mib(textBytes)} MiB of events; RSS ${mib(rssStart)} MiB at start, ` +
    `${mib(rssFilled)} with the stores full, ${mib(rssEngine)} once the engine's thread started`,
);
console.log(
  `  ${'shape'.padEnd(42)} ${'rows read'.padStart(9)} ${'CPU/answer'.padStart(11)} ` +
    `${'store read'.padStart(11)} ${'engine'.padStart(12)} ${'answer'.padStart(9)}`,
);
for (const [name, sql] of SHAPES) {
  const path = `/api/endpoints/query/logs.all?${new URLSearchParams({
    project: 'default',
    sql,
    iso_timestamp_start: hourAgo,
    iso_timestamp_end: '',
  })}`;
  let bytes = 0;
  const first = await call(path);
  if (first.status !== 200) throw new Error(`${name}: ${first.status} ${await first.text()}`);
  const cpu = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) bytes = (await (await call(path)).arrayBuffer()).byteLength;
  const used = process.cpuUsage(cpu);
  // The engine's part alone: rows already read, then loaded and queried.
  const plan = planQuery(await parseQuery(sql), nowUs);
  const source = SANDBOX_TABLES[plan.table] ?? 'cloudflare.logs.prod';
  const read = async () =>
    await readSourceRows(store, {
      project: 'default',
      source,
      afterUs: Date.parse(hourAgo) * 1000,
      untilUs: Number.MAX_SAFE_INTEGER,
      limit: ROWS,
    });
  const readStarted = performance.now();
  for (let i = 0; i < RUNS; i++) await read();
  const readMs = (performance.now() - readStarted) / RUNS;
  const rows = await read();
  const held: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await runPlan(plan, rows);
    held.push(performance.now() - started);
  }
  held.sort((a, b) => a - b);
  console.log(
    `  ${name.padEnd(42)} ${String(rows.length).padStart(9)} ` +
      `${((used.user + used.system) / 1000 / RUNS).toFixed(1).padStart(8)} ms ` +
      `${readMs.toFixed(1).padStart(8)} ms ` +
      `${(held[Math.floor(RUNS / 2)] ?? 0).toFixed(1).padStart(9)} ms ${
        (bytes / 1024).toFixed(1).padStart(6)
      } KB`,
  );
}
console.log(`RSS after the queries: ${mib(process.memoryUsage().rss)} MiB`);
app.close();
