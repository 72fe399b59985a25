/**
 * What the consumers say of Kafka's outages, from what they meet: a call to Kafka that failed (a
 * batch's heartbeat or commit, a dead letter, a partition's offsets, a start step), the group
 * stopped to rejoin, the group joined, a heartbeat answered. Only Kafka's own answers end an
 * outage, never a flush to the store, which may well answer while the broker is away. A
 * heartbeat ends it only after a heartbeat interval with no failure: the coordinator may answer
 * while another broker (a partition's leader, the dead-letter topic's) does not, and a line saying
 * Kafka is back after every heartbeat, and away again after every failure, would be noise. A call
 * to such a broker fails only once kafkajs has retried it (about a minute), so between two of
 * those failures the log may still say Kafka back; the failures' metric tells them apart.
 *
 * @example
 * ```ts
 * const outage = new KafkaOutage(new OutageLog({ logger, what: 'Kafka (b:9092)', nowMs }));
 * outage.failed(error); // "Kafka (b:9092) is not reachable; retrying"
 * outage.heartbeat(); // nothing: a failure came since the last heartbeat
 * outage.heartbeat(); // "Kafka (b:9092) is reachable again after 3 s"
 * ```
 *
 * @module
 */
import type { OutageLog } from '../src/async/outage-log.ts';

/** Kafka's outages, as the consumers' log says them. */
export class KafkaOutage {
  readonly #log: OutageLog;
  /** Whether a call failed since the last heartbeat answered. */
  #failedSinceHeartbeat = false;

  constructor(log: OutageLog) {
    this.#log = log;
  }

  /** A call to Kafka failed, or the group stopped to rejoin. */
  failed(error: unknown): void {
    this.#failedSinceHeartbeat = true;
    this.#log.failed(error);
  }

  /** The group's coordinator answered a heartbeat. */
  heartbeat(): void {
    if (this.#failedSinceHeartbeat) this.#failedSinceHeartbeat = false;
    else this.#log.recovered();
  }

  /** The group was joined (or the consumers started): Kafka answers. */
  joined(): void {
    this.#log.recovered();
  }
}
