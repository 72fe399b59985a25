/**
 * Kafka and Redis in containers (testcontainers), for test runs on machines with a Docker
 * engine and no services started by `npm run services:up`. testcontainers is imported only
 * here, and only when a Docker engine answers.
 *
 * Not exercised on the project's build machines, which have no Docker engine.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import type { StartedTestContainer } from 'testcontainers';
import type { ServiceAddresses } from './services.ts';
import { freePort } from '../../tools/services/free-port.ts';

/** The same Kafka as tools/services/kafka/pom.xml, as Apache's official image. */
export const KAFKA_IMAGE = 'apache/kafka:4.3.1';
export const REDIS_IMAGE = 'redis:7';

/** Containers started for this run. */
export interface StartedContainers {
  readonly kafka?: ServiceAddresses['kafka'];
  readonly redis?: ServiceAddresses['redis'];
  /** Stops every container started. */
  stop(): Promise<void>;
}

/** True when `docker info` succeeds within 15 s: a Docker engine answers. */
export function dockerAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('docker', ['info'], { stdio: 'ignore', timeout: 15_000 });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/**
 * Starts the requested services as containers, Kafka as a single KRaft node advertised on a
 * loopback port of this machine.
 *
 * @example
 * ```ts
 * const started = await startContainers(['kafka', 'redis']);
 * // started.kafka?.brokers, started.redis?.url
 * await started.stop();
 * ```
 */
export async function startContainers(
  names: readonly ('kafka' | 'redis')[],
): Promise<StartedContainers> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const running: StartedTestContainer[] = [];
  const stop = async () => {
    await Promise.all(running.map((container) => container.stop()));
  };
  try {
    let kafka: ServiceAddresses['kafka'] | undefined;
    let redis: ServiceAddresses['redis'] | undefined;
    if (names.includes('kafka')) {
      // The advertised port must be the one clients connect to: use the same number inside and
      // outside the container.
      const port = await freePort();
      const container = await new GenericContainer(KAFKA_IMAGE)
        .withEnvironment({
          KAFKA_NODE_ID: '1',
          KAFKA_PROCESS_ROLES: 'broker,controller',
          KAFKA_LISTENERS: `PLAINTEXT://:${port},CONTROLLER://:9093`,
          KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
          KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
          KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
          KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
          KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
          KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
          KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
          KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
          KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
          KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
          KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
          KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        })
        .withExposedPorts({ container: port, host: port })
        .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
        .withStartupTimeout(180_000)
        .start();
      running.push(container);
      kafka = { brokers: [`127.0.0.1:${port}`] };
    }
    if (names.includes('redis')) {
      const container = await new GenericContainer(REDIS_IMAGE)
        .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
        .withExposedPorts(6379)
        .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
        .start();
      running.push(container);
      redis = { url: `redis://${container.getHost()}:${container.getMappedPort(6379)}` };
    }
    return {
      ...(kafka === undefined ? {} : { kafka }),
      ...(redis === undefined ? {} : { redis }),
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
