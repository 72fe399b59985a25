/**
 * The cost budget of one consumer (`npm run bench:consumer -- [--events 200000]
 * [--partitions 12] [--interval 1000] [--profile-dir DIR] [--allocations] [--survivors]
 * [--node-flags="..."] [--memory-limit MIB]`): where
 * its CPU per event goes, stage by stage, beside the floor it cannot go below, measured in the same
 * run on the same events; with `--allocations`, where its allocated bytes go too; with
 * `--survivors`, where the bytes go that outlive a young-generation collection.
 *
 * 1. N generated events (`bench:ingest`'s: seed 1, the last hour, 1,000 projects, Zipf-skewed)
 *    are published, keyed by project, to fresh topics of `--partitions` partitions on the broker
 *    of KAFKA_BROKERS, and a fresh Redis of this run's own is started on a free port;
 * 2. the floor, in this process: kafkajs consuming and discarding the N messages (its CPU per
 *    event), plus `parse` (src/events/parse.ts) of the same N messages' bytes (read again from
 *    the generator, not from Kafka);
 * 3. one consumer process (`service/main.ts --role consumers`, the production entry point) with
 *    `node --cpu-prof --cpu-prof-interval=<interval µs> --trace-gc-nvp` catches up on the N
 *    events into that Redis. The window opens when it logs that it joined the group (start-up
 *    excluded) and closes when every partition's stored offset reaches the end; over it are read
 *    the process's CPU and its main thread's (`/proc`), its peak RSS (`VmHWM`), the bytes V8
 *    allocated and promoted to the old generation (the `allocated=` and `promoted=` of every GC
 *    traced in the window) and Redis's CPU (`INFO cpu`), with its split by command (`INFO
 *    commandstats`: a script's commands are counted in `EVALSHA` and under their own names).
 *    `--node-flags` adds flags to the consumer's `node` (e.g. the role's heap flags);
 *    `--memory-limit` starts it in a memory cgroup of that many MiB, as a container with that
 *    limit would (tools/bench/memory-limit.ts: Linux, as root), where V8 sizes its heap from the
 *    limit;
 * 4. the profile's samples of the window are split by stage (tools/bench/profile-stages.ts):
 *    each stage's share of the main thread's busy samples (all but idle) times the main thread's
 *    measured CPU per event gives its µs of CPU per event; samples × interval / events is printed
 *    beside it (on a loaded machine, preempted time is sampled too). The other threads' CPU (V8's
 *    concurrent GC and compilers, libuv) is printed as its own row.
 *
 * 5. with `--allocations`, the consumer also runs V8's sampling heap profiler over the window
 *    (through its inspector, keeping the samples of objects either GC collected): the bytes it
 *    allocated per event, split by the same stages and by allocating frame
 *    (tools/bench/allocation-stages.ts), and the profile is kept in the profile directory as
 *    `consumer.heapprofile`. The sampler costs CPU of its own: read that run's CPU
 *    figures as perturbed, and take them from a run without it. With `--survivors` instead, the
 *    sampler drops the samples of objects a scavenge collected: what is left outlived one (and
 *    was copied or promoted, then collected by a mark-compact or still alive at the end), the
 *    bytes that make V8's old generation and its concurrent marking work (the same samples as
 *    `memory-probe.ts`'s `MEMORY_PROBE_SAMPLING_S` takes inside any role process, here per event
 *    and by stage over the measured window).
 *
 * The ratio printed is the consumer process's CPU per event over the floor (issue 33's target:
 * at most 1.5). Figures also go to bench-results/consumer.json.
 *
 * @module
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { toolArgs } from '../tool-args.ts';
import { Kafka, logLevel } from 'kafkajs';
import { registerCodecs } from '../../src/kafka/codecs/register.ts';
import { ensureTopics, topicNames } from '../../src/kafka/topics.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { startOwnRedis, stopOwnRedis } from '../services/own-redis.ts';
import { freePort } from '../services/free-port.ts';
import { type SamplingHeapProfile, splitAllocations } from './allocation-stages.ts';
import { bareConsume } from './bare-consume.ts';
import { InspectorSession } from './inspector-session.ts';
import { type GcTraceLine, gcTraceLine } from './gc-trace.ts';
import { createMemoryCgroup, type MemoryCgroup } from './memory-limit.ts';
import { startConsumerProcess, storedEvents } from './consumer-process.ts';
import {
  environment,
  mainThreadCpuSeconds,
  positiveFlag,
  processCpuSeconds,
  processPeakRssBytes,
  threadCpuSeconds,
} from './measure.ts';
import { parseCpuUsPerEvent } from './parse-cost.ts';
import { type CpuProfile, splitProfile, STAGE_LABELS, STAGES } from './profile-stages.ts';
import { publishGenerated } from './publish-generated.ts';
import { commandsLine, RedisNodes } from './redis-nodes.ts';
import { kafkaService } from '../services/kafka.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    events: { type: 'string', default: '200000' },
    partitions: { type: 'string', default: '12' },
    interval: { type: 'string', default: '1000' },
    'profile-dir': { type: 'string' },
    allocations: { type: 'boolean', default: false },
    survivors: { type: 'boolean', default: false },
    'node-flags': { type: 'string', default: '' },
    'memory-limit': { type: 'string' },
  },
});
const EVENTS = positiveFlag('events', values.events);
const PARTITIONS = positiveFlag('partitions', values.partitions);
const INTERVAL_US = positiveFlag('interval', values.interval);
const MEMORY_LIMIT_MIB = values['memory-limit'] === undefined
  ? null
  : positiveFlag('memory-limit', values['memory-limit']);
/** How long the consumer may take to join its group before the run is given up. */
const JOIN_DEADLINE_MS = 120_000;
/** Whether the heap profiler runs, and whether it keeps what a scavenge collected. */
const SAMPLED = values.allocations || values.survivors;
/** Mean bytes between two samples of the heap profiler of `--allocations`. */
const ALLOCATION_SAMPLING_BYTES = 16_384;
const brokers = (process.env.KAFKA_BROKERS ?? kafkaService().address).split(',');
const nowHrUs = () => Number(process.hrtime.bigint() / 1000n);
const perEvent = (seconds: number) => Number((seconds / EVENTS * 1e6).toFixed(2));
const mib = (bytes: number | null) => bytes === null ? null : Number((bytes / 1048576).toFixed(1));

console.log(`consumer cost budget: ${environment()}`);
const prefix = `bench-consumer-${randomUUID().slice(0, 8)}.`;
/** The name of this run's CPU profile in the profile directory. */
const PROFILE_NAME = `${prefix}cpuprofile`;
const topics = topicNames(prefix);
registerCodecs();
const kafka = new Kafka({ clientId: 'bench-consumer', brokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, { partitions: PARTITIONS, topics: Object.values(topics) });
const redis = await startOwnRedis(`redis-bench-consumer-${process.pid}`);
const profileDir = values['profile-dir'] ?? mkdtempSync(join(tmpdir(), 'bench-consumer-'));
mkdirSync(profileDir, { recursive: true });
const results: Record<string, unknown> = {
  events: EVENTS,
  partitions: PARTITIONS,
  nodeFlags: values['node-flags'],
  memoryLimitMiB: MEMORY_LIMIT_MIB,
};
let child: ReturnType<typeof startConsumerProcess> | undefined;
/** The memory cgroup of `--memory-limit`, removed once the consumer has exited. */
let cgroup: MemoryCgroup | null = null;
try {
  // 1. Publish.
  const nowUs = Date.now() * 1000;
  const published = await publishGenerated(kafka, {
    topics,
    events: EVENTS,
    nowUs,
    keys: 'project',
    compression: 'none',
  });
  console.log(
    `1. published ${EVENTS} events keyed by project to ${PARTITIONS} partitions per topic ` +
      `in ${published.toFixed(1)} s (topics ${prefix}*); Redis of its own at ${redis.address}`,
  );

  // 2. The floor.
  const bare = await bareConsume(kafka, {
    groupId: `${prefix}bare`,
    topics: [topics.edge, topics['function-edge']],
    partitions: PARTITIONS,
    events: EVENTS,
  });
  const parseUs = Number(parseCpuUsPerEvent(EVENTS, nowUs).toFixed(2));
  const floor = Number((bare.cpuUsPerEvent + parseUs).toFixed(2));
  Object.assign(results, {
    bareEventsPerSecond: bare.eventsPerSecond,
    bareCpuUsPerEvent: bare.cpuUsPerEvent,
    parseCpuUsPerEvent: parseUs,
    floorCpuUsPerEvent: floor,
  });
  console.log(
    `2. floor: bare kafkajs consume-and-discard ${bare.cpuUsPerEvent} µs (${bare.eventsPerSecond} ` +
      `events/s) + parse ${parseUs} µs = ${floor} µs of CPU per event`,
  );

  // 3. One profiled consumer catching up.
  const store = await RedisStore.connect(redis.address);
  const nodes = await RedisNodes.connect('redis', { REDIS_URL: redis.address });
  const inspectorPort = SAMPLED ? await freePort() : null;
  cgroup = MEMORY_LIMIT_MIB === null
    ? null
    : createMemoryCgroup(MEMORY_LIMIT_MIB, `bench-consumer-${process.pid}`);
  child = startConsumerProcess({
    brokers,
    store: 'redis',
    redisUrl: redis.address,
    clusterNodes: [],
    prefix,
    logLevel: 'info',
    nodeFlags: [
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
      `--cpu-prof-name=${PROFILE_NAME}`,
      `--cpu-prof-interval=${INTERVAL_US}`,
      '--trace-gc-nvp',
      ...values['node-flags'].split(' ').filter((flag) => flag !== ''),
      ...(inspectorPort === null ? [] : [`--inspect=127.0.0.1:${inspectorPort}`]),
    ],
    ...(cgroup === null ? {} : { wrap: cgroup.wrap }),
  });
  const running = child;
  const exited = new Promise<number | null>((resolve) => running.once('exit', resolve));
  /** Every collection the consumer traced. */
  const gcs: GcTraceLine[] = [];
  let joined: () => void = () => undefined;
  const inGroup = new Promise<void>((resolve) => (joined = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const gc = gcTraceLine(line);
    if (gc !== null) gcs.push(gc);
    else if (line.includes('"msg":"consumers running"')) joined();
  });
  const gone = exited.then((code) => {
    throw new Error(`the consumer process exited (${code}) before the run ended`);
  });
  const late = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`the consumer did not join its group in ${JOIN_DEADLINE_MS} ms`)),
      JOIN_DEADLINE_MS,
    ).unref()
  );
  const inspector = inspectorPort === null
    ? null
    : await Promise.race([InspectorSession.connect(inspectorPort), gone, late]);
  await Promise.race([inGroup, gone, late]);
  await inspector?.send('HeapProfiler.startSampling', {
    samplingInterval: ALLOCATION_SAMPLING_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !values.survivors,
  });
  await nodes.resetStats();
  const from = {
    us: nowHrUs(),
    cpu: processCpuSeconds(child.pid),
    main: mainThreadCpuSeconds(child.pid),
    threads: threadCpuSeconds(child.pid),
    redis: (await nodes.cpuSeconds())[0] ?? 0,
  };
  const wallStart = Date.now();
  while ((await storedEvents(store, topics, PARTITIONS)) < EVENTS) {
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), gone]);
  }
  const to = {
    us: nowHrUs(),
    cpu: processCpuSeconds(child.pid),
    main: mainThreadCpuSeconds(child.pid),
    threads: threadCpuSeconds(child.pid),
    redis: (await nodes.cpuSeconds())[0] ?? 0,
  };
  const seconds = (Date.now() - wallStart) / 1000;
  const redisCommands = await nodes.commandsPerEvent(EVENTS, 8);
  const peakRss = processPeakRssBytes(child.pid);
  const heapProfile = inspector === null
    ? null
    : (await inspector.send('HeapProfiler.stopSampling')).profile as SamplingHeapProfile;
  inspector?.close();
  // Kept beside the CPU profile (Chrome's DevTools open either).
  if (heapProfile !== null) {
    writeFileSync(join(profileDir, 'consumer.heapprofile'), JSON.stringify(heapProfile));
  }
  gone.catch(() => undefined);
  child.kill('SIGTERM');
  await exited;
  await store.close();
  await nodes.close();
  if (from.cpu === null || to.cpu === null || from.main === null || to.main === null) {
    throw new Error("the consumer process's CPU could not be read from /proc (Linux only)");
  }
  const consumerUs = perEvent(to.cpu - from.cpu);
  const mainUs = perEvent(to.main - from.main);
  const otherThreadsUs = Number((consumerUs - mainUs).toFixed(2));
  // The other threads by name: V8's helpers (GC, compilers), libuv's, the profiler's own.
  const byName = new Map<string, number>();
  for (const [tid, { name, seconds }] of to.threads) {
    if (tid === child.pid) continue;
    const used = seconds - (from.threads.get(tid)?.seconds ?? 0);
    byName.set(name, (byName.get(name) ?? 0) + used);
  }
  const threadsUs = Object.fromEntries(
    [...byName].filter(([, used]) => used > 0).map(([name, used]) => [name, perEvent(used)]),
  );
  const profilerUs = threadsUs['v8:ProfEvntProc'] ?? 0;

  // 4. The profile, split by stage.
  // This run's profile, by its name: not one a reused --profile-dir holds from an earlier run.
  const file = join(profileDir, PROFILE_NAME);
  if (!existsSync(file)) throw new Error(`the consumer wrote no CPU profile ${file}`);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const split = splitProfile(profile, { fromUs: from.us, toUs: to.us, root: process.cwd() });
  // The GC trace counts from the isolate's start, which the profile's start follows closely.
  const isolateMs = (us: number) => (us - profile.startTime) / 1000;
  const inWindow = gcs.filter(({ ms }) => ms >= isolateMs(from.us) && ms <= isolateMs(to.us));
  // NaN, so no figure, where any collection's count wrapped (see gc-trace.ts).
  const allocated = inWindow.reduce((total, gc) => total + gc.allocatedBytes, 0);
  const promoted = inWindow.reduce((total, gc) => total + gc.promotedBytes, 0);
  const scavenges = inWindow.filter((gc) => gc.scavenge).length;
  const busy = split.total - (split.samples.get('idle') ?? 0);
  // Work of the catch-up the window missed (it opens when the parent reads the joining line).
  const before = splitProfile(profile, { fromUs: 0, toUs: from.us, root: process.cwd() });
  const missed = ['parse', 'fold'] as const;
  const missedSamples = missed.reduce((sum, stage) => sum + (before.samples.get(stage) ?? 0), 0);
  const stages = STAGES.map((stage) => {
    const samples = split.samples.get(stage) ?? 0;
    return {
      stage,
      samples,
      share: stage === 'idle' || busy === 0 ? null : Number((samples / busy).toFixed(3)),
      cpuUsPerEvent: stage === 'idle' || busy === 0
        ? null
        : Number((samples / busy * mainUs).toFixed(2)),
      sampledUsPerEvent: Number((samples * INTERVAL_US / EVENTS).toFixed(2)),
    };
  });
  Object.assign(results, {
    eventsPerSecond: Math.round(EVENTS / seconds),
    consumerCpuUsPerEvent: consumerUs,
    mainThreadCpuUsPerEvent: mainUs,
    otherThreadsCpuUsPerEvent: otherThreadsUs,
    otherThreadsByName: threadsUs,
    consumerCpuUsPerEventWithoutProfiler: Number((consumerUs - profilerUs).toFixed(2)),
    ratioToFloorWithoutProfiler: Number(((consumerUs - profilerUs) / floor).toFixed(2)),
    redisCpuUsPerEvent: perEvent(to.redis - from.redis),
    redisCommands,
    ratioToFloor: Number((consumerUs / floor).toFixed(2)),
    peakRssMiB: mib(peakRss),
    allocatedBytesPerEvent: Number.isNaN(allocated) ? null : Math.round(allocated / EVENTS),
    promotedBytesPerEvent: Number.isNaN(promoted) ? null : Math.round(promoted / EVENTS),
    scavenges,
    otherCollections: inWindow.length - scavenges,
    profileIntervalUs: INTERVAL_US,
    samples: split.total,
    samplesBeforeWindow: missedSamples,
    sampledSeconds: Number((split.sampledUs / 1e6).toFixed(2)),
    stages,
  });
  console.log(
    `3. one consumer caught up on ${EVENTS} events in ${seconds.toFixed(1)} s ` +
      `(${results.eventsPerSecond}/s): ${consumerUs} µs of CPU per event (main thread ${mainUs}, ` +
      `other threads ${otherThreadsUs}); Redis ${results.redisCpuUsPerEvent} µs; ` +
      `peak RSS ${results.peakRssMiB ?? '?'} MiB; V8 allocated ${
        results.allocatedBytesPerEvent ?? '?'
      } ` +
      `B per event, promoted ${
        results.promotedBytesPerEvent ?? '?'
      } B of them to the old generation ` +
      `(in the window ${scavenges} scavenges and ${inWindow.length - scavenges} other collections)`,
  );
  console.log(
    `   Redis by command, per event: ${commandsLine(redisCommands)}`,
  );
  console.log(
    `4. the profile: ${split.total} samples in the window (${busy} busy), every ${INTERVAL_US} µs; ` +
      `the main thread's measured CPU split by the busy samples' shares (before the window: ` +
      `${missedSamples} samples of parse and fold)\n`,
  );
  const row = (cells: readonly (string | number | null)[]) =>
    console.log(`| ${cells.map((cell) => cell ?? '—').join(' | ')} |`);
  row(['stage', 'µs of CPU per event', 'share', 'samples × interval / events, µs']);
  row(['---', '---:', '---:', '---:']);
  for (const { stage, share, cpuUsPerEvent, sampledUsPerEvent } of stages) {
    if (stage === 'idle') continue;
    const percent = share === null ? null : `${(share * 100).toFixed(1)}%`;
    row([STAGE_LABELS[stage], cpuUsPerEvent, percent, sampledUsPerEvent]);
  }
  row([
    '**main thread** (measured)',
    mainUs,
    '100%',
    Number((busy * INTERVAL_US / EVENTS).toFixed(2)),
  ]);
  row([
    `other threads (measured): ${
      Object.entries(threadsUs).map(([name, us]) => `${name} ${us}`).join(', ')
    }`,
    otherThreadsUs,
    '',
    '',
  ]);
  row(['**consumer process** (measured)', consumerUs, '', '']);
  row([
    "consumer process without the profiler's own thread",
    Number((consumerUs - profilerUs).toFixed(2)),
    '',
    '',
  ]);
  row([
    STAGE_LABELS.idle,
    '',
    '',
    stages.find((s) => s.stage === 'idle')?.sampledUsPerEvent ?? null,
  ]);
  row(['floor: bare kafkajs consume-and-discard', bare.cpuUsPerEvent, '', '']);
  row(['floor: parse of the same messages', parseUs, '', '']);
  row(['**floor**', floor, '', '']);
  row(['**consumer / floor** (target ≤ 1.5)', `${results.ratioToFloor}×`, '', '']);
  row([
    "consumer without the profiler's thread / floor",
    `${results.ratioToFloorWithoutProfiler}×`,
    '',
    '',
  ]);
  const others = [...split.otherLeaves].sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log(
    `\n"other" by leaf frame: ${
      others.map(([leaf, count]) => `${leaf} ${(count / Math.max(1, busy) * 100).toFixed(1)}%`)
        .join(', ')
    }`,
  );
  if (heapProfile !== null) printAllocations(heapProfile, results);
} finally {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    // Waited for: a memory cgroup can be removed only once its process has gone.
    const running = child;
    const stopped = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    const killLater = setTimeout(() => running.kill('SIGKILL'), 10_000);
    await stopped;
    clearTimeout(killLater);
  }
  try {
    cgroup?.remove();
  } catch (error) {
    console.error(`the memory cgroup ${cgroup?.dir} is left behind: ${String(error)}`);
  }
  await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
  await admin.disconnect();
  await stopOwnRedis(redis);
  if (values['profile-dir'] === undefined) rmSync(profileDir, { recursive: true, force: true });
}
mkdirSync('bench-results', { recursive: true });
writeFileSync('bench-results/consumer.json', `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results));

/** Prints the allocations of `profile` per event, by stage and by frame, into `results` too. */
function printAllocations(profile: SamplingHeapProfile, results: Record<string, unknown>): void {
  const split = splitAllocations(profile, process.cwd());
  const perEventBytes = (bytes: number) => Math.round(bytes / EVENTS);
  const byStage = STAGES.filter((stage) => stage !== 'idle').map((stage) => ({
    stage,
    bytesPerEvent: perEventBytes(split.bytes.get(stage) ?? 0),
  }));
  const frames = [...split.frames].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 20)
    .map(([frame, { stage, bytes }]) => ({ frame, stage, bytesPerEvent: perEventBytes(bytes) }));
  Object.assign(results, {
    sampledObjects: values.survivors ? 'outlived a scavenge' : 'all',
    sampledAllocatedBytesPerEvent: perEventBytes(split.total),
    allocationsByStage: byStage,
    allocationsByFrame: frames,
  });
  const [what, column] = values.survivors
    ? ['the objects that outlived a scavenge', 'bytes outliving a scavenge per event']
    : ['every object, collected ones kept', 'bytes allocated per event'];
  console.log(
    `\n5. allocations (V8's sampling heap profiler, a sample every ${ALLOCATION_SAMPLING_BYTES} ` +
      `bytes on average, ${what}): ${perEventBytes(split.total)} bytes per event\n`,
  );
  console.log(`| stage | ${column} | share |`);
  console.log('| --- | ---: | ---: |');
  for (const { stage, bytesPerEvent } of byStage) {
    const share = split.total === 0 ? 0 : bytesPerEvent * EVENTS / split.total;
    console.log(`| ${STAGE_LABELS[stage]} | ${bytesPerEvent} | ${(share * 100).toFixed(1)}% |`);
  }
  console.log('\n| allocating frame (nearest with a file) | stage | bytes per event |');
  console.log('| --- | --- | ---: |');
  for (const { frame, stage, bytesPerEvent } of frames) {
    console.log(`| \`${frame}\` | ${stage} | ${bytesPerEvent} |`);
  }
}
