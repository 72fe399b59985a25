/**
 * Apache Kafka 4.x, single node in KRaft mode (combined broker and controller), run from its
 * Maven Central artifacts on the machine's Java (17 or newer). The broker's configuration is
 * committed: tools/services/kafka/server.properties and log4j2.properties.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kafkaClasspath } from './kafka-classpath.ts';
import { REPO_ROOT, serviceDir } from './paths.ts';
import { probeKafka } from './probes.ts';
import { capture, findOnPath, runLogged } from './run.ts';
import type { Service, ServiceCommand } from './service.ts';

const CONFIG_DIR = join(REPO_ROOT, 'tools/services/kafka');
/** The development broker's settings, the base of every broker of ours. */
export const SERVER_PROPERTIES: string = join(CONFIG_DIR, 'server.properties');
const LOG4J2_PROPERTIES = join(CONFIG_DIR, 'log4j2.properties');

/**
 * Heap and GC for a 2-core machine shared with Redis, the tests and the consumers; G1 with the
 * pause target of Kafka's own start script. `KAFKA_HEAP_OPTS` replaces the heap part, as it does
 * for Kafka's scripts.
 */
const DEFAULT_HEAP_OPTS = ['-Xms256m', '-Xmx768m'];
const JVM_OPTS = [
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:ParallelGCThreads=2',
  '-XX:ConcGCThreads=1',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
  `-Dlog4j2.configurationFile=${LOG4J2_PROPERTIES}`,
];

/** The development broker as a {@link Service}; its address is the advertised PLAINTEXT listener. */
export function kafkaService(): Service {
  const properties = readProperties(SERVER_PROPERTIES);
  const listener = requireProperty(properties, 'advertised.listeners');
  const match = /^PLAINTEXT:\/\/([^:,]+):(\d+)$/.exec(listener);
  if (match?.[1] === undefined || match[2] === undefined) {
    throw new Error(
      `${SERVER_PROPERTIES}: advertised.listeners must be one PLAINTEXT://host:port listener; current value is '${listener}'`,
    );
  }
  return brokerService({
    name: 'kafka',
    host: match[1],
    port: Number(match[2]),
    propertiesFile: SERVER_PROPERTIES,
    dataDir: resolve(REPO_ROOT, requireProperty(properties, 'log.dirs')),
  });
}

/** Where a further broker listens and keeps its state. */
export interface ExtraBrokerOptions {
  /** Service name, also its state folder under `.services/` (the data is in `data` there). */
  readonly name: string;
  /** Its PLAINTEXT port on loopback. */
  readonly port: number;
  /** Its KRaft controller port on loopback. */
  readonly controllerPort: number;
}

/**
 * One more single-node broker with the development broker's settings but its own ports and data
 * folder (a test that needs a fresh broker, say). Remove its state folder for a fresh start.
 */
export function extraBrokerService(options: ExtraBrokerOptions): Service {
  const state = serviceDir(options.name);
  const dataDir = join(state, 'data');
  const propertiesFile = join(state, 'server.properties');
  const host = '127.0.0.1';
  const overrides: Record<string, string> = {
    'controller.quorum.voters': `1@${host}:${options.controllerPort}`,
    listeners: `PLAINTEXT://${host}:${options.port},CONTROLLER://${host}:${options.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${host}:${options.port}`,
    'log.dirs': dataDir,
  };
  const lines = readFileSync(SERVER_PROPERTIES, 'utf8').split('\n').filter((line) => {
    const key = line.split('=')[0]?.trim() ?? '';
    return !(key in overrides);
  });
  const text = [...lines, ...Object.entries(overrides).map(([key, value]) => `${key}=${value}`)]
    .join('\n');
  const service = brokerService({
    name: options.name,
    host,
    port: options.port,
    propertiesFile,
    dataDir,
  });
  return {
    ...service,
    prepare(log) {
      mkdirSync(state, { recursive: true });
      writeFileSync(propertiesFile, `${text}\n`);
      return service.prepare(log);
    },
  };
}

/** What one broker needs beyond the shared settings. */
export interface BrokerSpec {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly propertiesFile: string;
  readonly dataDir: string;
  /** Heap options unless `KAFKA_HEAP_OPTS` is set; default {@link DEFAULT_HEAP_OPTS}. */
  readonly heapOpts?: readonly string[];
  /** Further arguments of the one `kafka-storage format` (SCRAM users, say). */
  readonly formatArgs?: () => readonly string[];
  /** The probe; default a metadata request over PLAINTEXT. */
  readonly probe?: () => Promise<void>;
}

/** One single-node KRaft broker of ours as a {@link Service}. */
export function brokerService(spec: BrokerSpec): Service {
  const { host, port, dataDir, propertiesFile } = spec;
  const state = serviceDir(spec.name);
  let classpath: string | undefined;

  return {
    name: spec.name,
    address: `${host}:${port}`,
    host,
    port,
    pidFile: join(state, 'kafka.pid'),
    logFile: join(state, 'kafka.log'),
    // The properties file is on the command line: two brokers of ours are told apart by it.
    marker: propertiesFile,
    startTimeoutMs: 120_000,
    stopGraceMs: 30_000,
    async prepare(log) {
      await requireJava17();
      classpath = await kafkaClasspath(log);
      if (!existsSync(join(dataDir, 'meta.properties'))) {
        log(`formatting the KRaft storage in ${dataDir} (first run only)`);
        mkdirSync(state, { recursive: true });
        await runLogged('java', [
          ...JVM_OPTS,
          'kafka.tools.StorageTool',
          'format',
          '--config',
          propertiesFile,
          '--cluster-id',
          randomClusterId(),
          ...(spec.formatArgs?.() ?? []),
        ], { logFile: join(state, 'format.log'), env: { CLASSPATH: classpath } });
      }
    },
    command(): Promise<ServiceCommand> {
      if (classpath === undefined) throw new Error('command() called before prepare()');
      const heap = process.env['KAFKA_HEAP_OPTS']?.split(/\s+/).filter((opt) => opt !== '') ??
        spec.heapOpts ?? DEFAULT_HEAP_OPTS;
      // The classpath goes through the environment: `ps` stays readable, and it is 5 kB long.
      return Promise.resolve({
        command: 'java',
        args: [...heap, ...JVM_OPTS, 'kafka.Kafka', propertiesFile],
        env: { CLASSPATH: classpath },
      });
    },
    probe: spec.probe ?? (() => probeKafka([`${host}:${port}`])),
  };
}

async function requireJava17(): Promise<void> {
  const hint =
    'Kafka 4 needs Java 17 or newer on PATH (Debian 12: apt-get install -y openjdk-17-jre-headless)';
  if (findOnPath('java') === undefined) throw new Error(`java not found. ${hint}`);
  const { output } = await capture('java', ['-version']);
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  const major = match?.[1] === '1' ? Number(match[2]) : Number(match?.[1]);
  if (!(major >= 17)) throw new Error(`found Java '${output.split('\n')[0]}'. ${hint}`);
}

/** A Kafka cluster id: 16 random bytes, URL-safe base64 without padding, not starting with '-'. */
function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** `key=value` lines of a Java properties file (no continuation lines: ours has none). */
export function readProperties(file: string): Map<string, string> {
  const properties = new Map<string, string>();
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const separator = line.search(/[=:]/);
    if (separator > 0) {
      properties.set(line.slice(0, separator).trim(), line.slice(separator + 1).trim());
    }
  }
  return properties;
}

function requireProperty(properties: Map<string, string>, key: string): string {
  const value = properties.get(key);
  if (value === undefined || value === '') throw new Error(`${SERVER_PROPERTIES} must set ${key}`);
  return value;
}
