/**
 * What a consumer process tells on its `/metrics` (`METRICS_PORT`), read by the tests that kill
 * and restart members: the messages it found already folded and skipped, its joins of the group,
 * and the partitions it holds; and its batches that failed, by reason.
 *
 * @module
 */

/** A scrape of one member's metrics. */
export interface MemberMetrics {
  /** `consumer_skipped_messages_total`. */
  readonly skipped: number;
  /** `consumer_group_joins_total`: its first join and one per rebalance after. */
  readonly joins: number;
  /** The `topic/partition` streams it holds (the labels of `consumer_lag_events`). */
  readonly streams: readonly string[];
}

/** The value of the unlabelled sample `name` in a Prometheus text exposition. */
function sample(text: string, name: string): number | null {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line === undefined ? null : Number(line.split(' ')[1]);
}

/** Scrapes the member whose metrics are on `port`; null when it did not answer within 2 s. */
export async function memberMetrics(port: number): Promise<MemberMetrics | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
      signal: AbortSignal.timeout(2_000),
    });
    const text = await response.text();
    const skipped = sample(text, 'consumer_skipped_messages_total');
    const joins = sample(text, 'consumer_group_joins_total');
    if (skipped === null || joins === null) return null;
    const streams = [
      ...text.matchAll(/^consumer_lag_events\{topic="([^"]+)",partition="(\d+)"\}/gm),
    ]
      .map(([, topic, partition]) => `${topic}/${partition}`);
    return { skipped, joins, streams };
  } catch {
    return null;
  }
}

/**
 * The member's metrics once it serves them (a process just started may still be loading its
 * modules), or null after `timeoutMs`.
 */
export async function memberMetricsOnceUp(
  port: number,
  timeoutMs = 10_000,
): Promise<MemberMetrics | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const metrics = await memberMetrics(port);
    if (metrics !== null || Date.now() > deadline) return metrics;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** `consumer_batch_failures_total{reason}` in a Prometheus text exposition (0 when absent). */
export function batchFailures(text: string, reason: string): number {
  const line = text.split('\n').find((entry) =>
    entry.startsWith(`consumer_batch_failures_total{reason="${reason}"} `)
  );
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}
