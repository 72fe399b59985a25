/**
 * Finding a Redis Cluster's new master after a failover. node-redis learns where a slot went
 * only from a `MOVED` or `ASK` reply; a master that died (SIGKILL, a lost host) sends none, so
 * every command of its slots would fail as "offline" for as long as the process runs, even once
 * Redis has promoted its replica. A store that sees a node away asks a node that answers for the
 * cluster's slots again ({@link ClusterRefresh.nodeAway}), at most once per interval.
 *
 * @module
 */
import type { createCluster } from 'redis';

type Cluster = ReturnType<typeof createCluster>;

/** Default of the pause between two refreshes, in ms. */
export const CLUSTER_REFRESH_MS = 1_000;

/** Refreshes the slot map of one cluster client when told a node is away. */
export class ClusterRefresh {
  readonly #intervalMs: number;
  readonly #nowMs: () => number;
  readonly #onError: (error: Error) => void;
  #lastMs = Number.NEGATIVE_INFINITY;

  constructor(options: {
    readonly intervalMs?: number;
    readonly nowMs?: () => number;
    readonly onError?: (error: Error) => void;
  } = {}) {
    this.#intervalMs = options.intervalMs ?? CLUSTER_REFRESH_MS;
    this.#nowMs = options.nowMs ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
  }

  /**
   * A command of `cluster` failed because its node is away: unless a refresh ran within the
   * interval, asks a master that answers for the slots (in the background: the command has
   * failed anyway, and its caller retries).
   */
  nodeAway(cluster: Cluster): void {
    const nowMs = this.#nowMs();
    if (nowMs - this.#lastMs < this.#intervalMs) return;
    this.#lastMs = nowMs;
    const live = cluster.masters.find((master) => master.client?.isReady === true)?.client;
    if (live === undefined || !cluster.isOpen) return;
    cluster._slots.rediscover(live).catch((error: unknown) =>
      this.#onError(error instanceof Error ? error : new Error(String(error)))
    );
  }
}
