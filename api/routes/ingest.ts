/**
 * `POST /api/ingest/{source}`: events of one source (NDJSON, a JSON array or one JSON object),
 * validated as the consumers validate them, handed to the ingest sink; answered 202 with the
 * counts.
 *
 * @module
 */
import type { Hono } from 'hono';
import { type Source, SOURCES } from '../../src/events/types.ts';
import type { Logger } from '../../src/logger.ts';
import { withDeadline } from '../deadline.ts';
import type { ApiEnv } from '../context.ts';
import { HttpError, methodNotAllowed, unavailable } from '../errors.ts';
import { MAX_BODY_DEPTH, readBody, splitBody } from '../ingest/body.ts';
import { type IngestSink, NOTHING_REGISTERED, type SinkOutcome } from '../ingest/sink.ts';
import { StoreFullError } from '../../src/store/memory-budget.ts';
import type { RegisteredHost } from '../../src/rollup/keys.ts';
import { MAX_REPORTED_ERRORS, validateItems } from '../ingest/validate.ts';
import { jsonResponse } from '../json.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { ProjectsPerKey } from '../ingest/projects-per-key.ts';

/** What the ingest route needs. */
export interface IngestRouteDeps {
  readonly sink: IngestSink;
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly maxBytes: number;
  /** Most events one body may hold. */
  readonly maxItems: number;
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

function isSource(value: string): value is Source {
  return (SOURCES as readonly string[]).includes(value);
}

/** Registers the ingest route on `app`. */
export function registerIngestRoute(app: Hono<ApiEnv>, deps: IngestRouteDeps): void {
  app.post('/api/ingest/:source', async (c) => {
    c.set('endpoint', 'ingest');
    const source = c.req.param('source');
    if (!isSource(source)) {
      throw new HttpError(
        'not_found',
        `unknown source ${JSON.stringify(source.slice(0, 100))}: one of ${SOURCES.join(', ')}`,
      );
    }
    const items = splitBody(await readBody(c.req.raw, deps.maxBytes), {
      maxItems: deps.maxItems,
      maxDepth: MAX_BODY_DEPTH,
    });
    const validated = validateItems(items, source, {
      nowUs: deps.nowUs(),
      maxFutureSkewUs: deps.maxFutureSkewUs,
    });
    const keyIndex = c.get('caller');
    if (keyIndex === null) {
      throw new Error('ingest reached without a caller: requireApiKey must run before the routes');
    }
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
    return jsonResponse({ accepted, rejected, errors }, 202);
  });
  app.all('/api/ingest/:source', (c) => {
    c.set('endpoint', 'method_not_allowed');
    throw methodNotAllowed(c.req.method, ['POST', 'OPTIONS']);
  });
}
