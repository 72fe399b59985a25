/**
 * The write-model benchmark (`npm run bench:write-models`), on an empty Redis of its own
 * (`own-store.ts`): what Redis spends per event under the two commutative write models that let
 * any number of writers touch one project (docs/ROLLUPS.md, "Any number of writers").
 *
 * - `parts` (what the service does): each stream writes its own field of a bucket's hash, the
 *   whole part as one value, in one script per project (the real `PartitionWriter` and
 *   `RedisStore`).
 * - `merge in Redis` (HINCRBY, as AggregatingMergeTree merges inside the engine): each delta is
 *   applied field by field in one script per project: HINCRBY for the counts and each sketch
 *   bin, HINCRBYFLOAT for the sum, compare-and-set for min and max, PEXPIREAT per key. Measured
 *   generously: every execution time goes to its bin, so the exact quantiles CONTRACT section 6 promises
 *   up to 100 values are not kept (keeping them commutatively would cost more).
 *
 * Method: EVENTS generated events (seed 1, the last hour, 1,000 projects, Zipf) parsed and folded
 * once into flushes of 3,000 events per stream over 12 partitions per source, spread by project
 * (a keyed producer) or by index (one that does not key: every stream writes every project). The
 * same flushes are then written by each model into an emptied Redis; Redis CPU (INFO cpu, user +
 * system) and used_memory growth are taken around each. Ring buffers, watermarks and the host
 * registry are the same in both models and left out of both (a third row, `parts + logs`, adds
 * them to the parts model, to show their share); the parts model still carries its
 * exactly-once fence (the project's watermark in each commit, the stream's resume offset per
 * flush), which the other model would need too and does not pay here.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { toolArgs } from '../tool-args.ts';
import { createClient } from 'redis';
import { parse } from '../../src/events/parse.ts';
import type { Source } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { type RollupDelta, type StateObject, stateObject } from '../../src/rollup/fold-delta.ts';
import { partRef } from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { RELATIVE_ACCURACY } from '../../src/rollup/quantiles.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { environment } from './measure.ts';
import { startOwnBenchStore } from './own-store.ts';
import { RedisNodes } from './redis-nodes.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    events: { type: 'string', default: '200000' },
    // Also print where Redis spent its time, per command (INFO commandstats).
    commands: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
if (!Number.isInteger(EVENTS) || EVENTS < 1000) {
  console.error('--events must be an integer of at least 1000');
  process.exit(2);
}
const PARTITIONS = 12;
const FLUSH_EVENTS = 3_000;
// An empty Redis of this run's own: each model empties it, which the shared one must never be.
const ownStore = await startOwnBenchStore('redis', `redis-bench-write-models-${process.pid}`);
const redisUrl = ownStore.redisUrl;

/** One flush of one stream: its delta, without ring buffer and hosts, and its end offset. */
interface Flush {
  readonly stream: string;
  readonly delta: RollupDelta;
  readonly next: number;
}

/**
 * Folds the generated stream into flushes, the same for every model. Each model gets its own
 * (the writer copies a delta's states into its parts and merges later deltas into them).
 * `withLogs`: keep the ring-buffer additions and hosts, to show what they add.
 */
function foldedFlushes(spread: 'project' | 'index', nowUs: number, withLogs: boolean): Flush[] {
  const flushes: Flush[] = [];
  const streams = new Map<string, { fold: Fold; offset: number }>();
  const take = (stream: string, state: { fold: Fold; offset: number }) => {
    const delta = state.fold.take();
    for (const project of withLogs ? [] : delta.projects.values()) {
      project.logs.length = 0;
      project.hosts.clear();
    }
    flushes.push({ stream, delta, next: state.offset });
  };
  let index = 0;
  for (const { source, line } of generateEvents({ seed: 1, events: EVENTS, nowUs })) {
    const result = parse(new TextEncoder().encode(line), source as Source, { nowUs });
    index += 1;
    if (!result.ok) continue;
    const partition = spread === 'index'
      ? index % PARTITIONS
      : createHash('md5').update(result.event.project).digest().readUInt32BE(0) % PARTITIONS;
    const stream = `${source}/${partition}`;
    let state = streams.get(stream);
    if (state === undefined) {
      state = { fold: new Fold(stream), offset: 0 };
      streams.set(stream, state);
    }
    state.fold.add(result.event, state.offset, nowUs);
    state.offset += 1;
    if (state.fold.size >= FLUSH_EVENTS) take(stream, state);
  }
  for (const [stream, state] of streams) if (state.fold.size > 0) take(stream, state);
  return flushes;
}

/** The service's model: one part per stream, through the real writer and store. */
async function writeParts(flushes: readonly Flush[], nowUs: number): Promise<void> {
  const store = await RedisStore.connect(redisUrl);
  const writers = new Map<string, PartitionWriter>();
  for (const { stream, delta, next } of flushes) {
    let writer = writers.get(stream);
    if (writer === undefined) {
      // A Kafka partition's writer, as the consumers build it (it keeps a resume offset; its
      // ring buffers go outside the commits).
      writer = new PartitionWriter({
        store,
        stream,
        nowUs: () => nowUs,
        earliestOffset: () => Promise.resolve(0),
      });
      await writer.open();
      writers.set(stream, writer);
    }
    await writer.loadWatermarks(delta.projects.keys());
    await writer.flush(delta, next);
  }
  await store.close();
}

/**
 * Applies field operations to hashes: ARGV = per key, its expiry (ms), its operation count, then
 * (operation, field, value) triples; `i` HINCRBY, `f` HINCRBYFLOAT, `<` keep the minimum, `>`
 * keep the maximum.
 */
const MERGE_SCRIPT = `
local a = 1
for k = 1, #KEYS do
  local key = KEYS[k]
  local expireAt = ARGV[a]
  local ops = tonumber(ARGV[a + 1])
  a = a + 2
  for _ = 1, ops do
    local op, field, value = ARGV[a], ARGV[a + 1], ARGV[a + 2]
    a = a + 3
    if op == 'i' then
      redis.call('HINCRBY', key, field, value)
    elseif op == 'f' then
      redis.call('HINCRBYFLOAT', key, field, value)
    else
      local stored = redis.call('HGET', key, field)
      local n = tonumber(value)
      if not stored or (op == '<' and n < tonumber(stored)) or (op == '>' and n > tonumber(stored)) then
        redis.call('HSET', key, field, value)
      end
    end
  end
  redis.call('PEXPIREAT', key, expireAt)
end
return 1`;

const LOG_GAMMA = Math.log((1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY));

/** The field operations of one pending state: what merging it inside Redis sends. */
function fieldOperations(pending: StateObject): string[] {
  const ops: string[] = [];
  const add = (op: string, field: string, value: number) => {
    if (value !== 0) ops.push(op, field, String(value));
  };
  if (pending.kind === 'usage') {
    for (const [field, value] of Object.entries(pending.state)) add('i', field, value);
    return ops;
  }
  const state = pending.state;
  add('i', 'n', state.count);
  add('i', 'e', state.errorCount);
  state.statusClasses.forEach((count, i) => add('i', `s${i}`, count));
  add('i', 't', state.timedCount);
  add('f', 'sum', state.sum);
  if (state.min !== null) ops.push('<', 'min', String(state.min));
  if (state.max !== null) ops.push('>', 'max', String(state.max));
  const bins = new Map<string, number>();
  const bin = (value: number) =>
    Math.abs(value) < 1e-6
      ? 'z'
      : `${value > 0 ? 'p' : 'n'}${Math.ceil(Math.log(Math.abs(value)) / LOG_GAMMA)}`;
  const sketch = state.times;
  if (sketch.kind === 'exact') {
    for (const value of sketch.values) bins.set(bin(value), (bins.get(bin(value)) ?? 0) + 1);
  } else {
    for (const [index, count] of sketch.positive) bins.set(`p${index}`, count);
    for (const [index, count] of sketch.negative) bins.set(`n${index}`, count);
    if (sketch.zero > 0) bins.set('z', sketch.zero);
  }
  for (const [field, count] of bins) add('i', field, count);
  return ops;
}

/** The alternative: every delta merged field by field inside Redis, one script per project. */
async function writeMergedInRedis(flushes: readonly Flush[], _nowUs: number): Promise<void> {
  const client = await createClient({ url: redisUrl }).connect();
  const sha = await client.scriptLoad(MERGE_SCRIPT);
  for (const { delta } of flushes) {
    const calls: Promise<unknown>[] = [];
    for (const project of delta.projects.values()) {
      const keys: string[] = [];
      const args: string[] = [];
      for (const state of project.states) {
        const { address } = state;
        const ops = fieldOperations(stateObject(delta, state));
        // A second's fields go in its minute's hash, under the second's slot.
        const { key, slot } = partRef(address);
        if (slot !== undefined) {
          for (let i = 1; i < ops.length; i += 3) ops[i] = `${slot}:${ops[i]}`;
        }
        keys.push(key);
        args.push(String(state.expireAtMs), String(ops.length / 3), ...ops);
      }
      if (keys.length > 0) calls.push(client.evalSha(sha, { keys, arguments: args }));
    }
    // One flush's projects at once, as the writer sends its commits.
    await Promise.all(calls);
  }
  await client.close();
}

const nodes = await RedisNodes.connect('redis', ownStore.env);
console.log(`write-model benchmark: ${environment()}; ${EVENTS} events, Redis ${nodes.names[0]}`);
console.log(
  'spread            model            Redis CPU/event  Node CPU/event  used_memory growth',
);
for (const spread of ['project', 'index'] as const) {
  const nowUs = Date.now() * 1000;
  const models = [
    ['parts', false, writeParts],
    ['merge in Redis', false, writeMergedInRedis],
    ['parts + logs', true, writeParts],
  ] as const;
  for (const [model, withLogs, write] of models) {
    const flushes = foldedFlushes(spread, nowUs, withLogs);
    const events = flushes.reduce((total, flush) => total + flush.delta.events, 0);
    await nodes.flush();
    await nodes.resetStats();
    const [memoryBefore = 0] = await nodes.usedMemory();
    const [cpuBefore = 0] = await nodes.cpuSeconds();
    const nodeBefore = process.cpuUsage();
    await write(flushes, nowUs);
    const node = process.cpuUsage(nodeBefore);
    const [cpuAfter = 0] = await nodes.cpuSeconds();
    const [memoryAfter = 0] = await nodes.usedMemory();
    console.log(
      `${spread === 'project' ? 'keyed by project' : 'not keyed      '}  ${model.padEnd(15)}  ${
        ((cpuAfter - cpuBefore) / events * 1e6).toFixed(2).padStart(12)
      } µs  ${((node.user + node.system) / events).toFixed(2).padStart(11)} µs  ${
        ((memoryAfter - memoryBefore) / 1048576).toFixed(1).padStart(14)
      } MiB`,
    );
    if (values.commands) {
      const top = (await nodes.commandStats()).slice(0, 8).map((stat) =>
        `${stat.command} ${(stat.usec / events).toFixed(2)} µs (${
          (stat.calls / events).toFixed(2)
        } calls)`
      );
      console.log(`    per event: ${top.join(', ')}`);
    }
  }
}
await nodes.close();
await ownStore.stop();
