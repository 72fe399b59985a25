/**
 * What every ingest route does once a body's events are validated: hold them to the distinct
 * projects one key may send a day, hand them to the sink within its deadline, and count what
 * was accepted and refused. A refusal of the whole body is an `HttpError` (507 when the embedded
 * store has no room, 503 when the sink fails), so the caller sends it again.
 *
 * @module
 */
import type { StreamSource } from '../../src/events/types.ts';
import type { Logger } from '../../src/logger.ts';
import type { RegisteredHost } from '../../src/rollup/keys.ts';
import { StoreFullError } from '../../src/store/memory-budget.ts';
import { withDeadline } from '../deadline.ts';
import { HttpError, unavailable } from '../errors.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { ProjectsPerKey } from './projects-per-key.ts';
import { type IngestSink, NOTHING_REGISTERED, type SinkOutcome } from './sink.ts';
import { type ItemError, MAX_REPORTED_ERRORS, type Validated } from './validate.ts';

/** What delivering needs. */
export interface DeliverDeps {
  readonly sink: IngestSink;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  /** Longest wait for the sink, in ms. */
  readonly timeoutMs: number;
  /** The bound on distinct projects per API key and day. */
  readonly projectsPerKey: ProjectsPerKey;
  /**
   * Called after events were folded in this process, so cached answers are dropped, with the
   * hosts they registered (null: unknown, the fold failed part way).
   */
  readonly onFolded: (registered: readonly RegisteredHost[] | null) => void;
}

/** What became of a body's events. */
export interface Delivered {
  readonly accepted: number;
  readonly rejected: number;
  /** The first {@link MAX_REPORTED_ERRORS} rejections, in body order. */
  readonly errors: readonly ItemError[];
}

/**
 * Delivers the `validated` events of `source` sent with key `keyIndex`; throws an `HttpError`
 * when the sink refused or failed the whole body.
 */
export async function deliver(
  deps: DeliverDeps,
  source: StreamSource,
  validated: Validated,
  keyIndex: number,
): Promise<Delivered> {
  const perKey = deps.projectsPerKey.admit(keyIndex, validated.accepted);
  let outcome: SinkOutcome | null = null;
  try {
    const destination = deps.sink.kind === 'kafka' ? 'Kafka' : 'the store';
    const accepting = deps.sink.accept(source, perKey.admitted);
    // Settled by the sink, not by the deadline: a store that refuses the body whole after the
    // client was answered 503 still gives the key its projects back.
    accepting.then(
      () => deps.projectsPerKey.settle(perKey, true),
      (error: unknown) => deps.projectsPerKey.settle(perKey, !(error instanceof StoreFullError)),
    );
    outcome = await withDeadline(accepting, deps.timeoutMs, destination);
  } catch (error) {
    if (error instanceof StoreFullError) {
      // Refused before anything was folded: the view of the registry stays as it is.
      outcome = NOTHING_REGISTERED;
      deps.metrics.countIngestRefused('memory_budget', perKey.admitted.length);
      throw new HttpError('insufficient_storage', error.message, {}, { cause: error });
    }
    if (error instanceof HttpError) throw error;
    deps.logger.warn({ err: error, source }, 'ingest sink failed');
    throw unavailable(
      deps.sink.kind === 'kafka'
        ? 'Kafka did not acknowledge the events; send them again (a retry may publish some twice)'
        : 'the store did not take the events; send them again shortly',
    );
  } finally {
    if (deps.sink.kind === 'direct') deps.onFolded(outcome?.registered ?? null);
  }
  // Counted only now: a body answered 507 or 503 is sent again, and would be counted twice.
  deps.metrics.countIngestRefused('projects_per_key', perKey.refused.length);
  const refused = [...perKey.refused, ...outcome.refused];
  const accepted = validated.accepted.length - refused.length;
  const rejected = validated.rejected + refused.length;
  deps.metrics.countIngested(source, 'accepted', accepted);
  deps.metrics.countIngested(source, 'rejected', rejected);
  // Each list is in body order; the first MAX_REPORTED_ERRORS of them together are told.
  const errors = [...validated.errors, ...refused].sort((a, b) => a.line - b.line)
    .slice(0, MAX_REPORTED_ERRORS);
  return { accepted, rejected, errors };
}

/** The index of the request's key, which `requireApiKey` set before any ingest route runs. */
export function callerKey(keyIndex: number | null): number {
  if (keyIndex === null) {
    throw new Error('ingest reached without a caller: requireApiKey must run before the routes');
  }
  return keyIndex;
}
