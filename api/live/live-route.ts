/**
 * The live form of the endpoint routes: a `GET` that accepts `text/event-stream` gets the answer
 * it would get, as the first event of a stream, then each new answer as the rollups change
 * (live-answers.ts). Asked with parameters the `GET` refuses, it gets the same refusal, not a
 * stream. Keys arrive as for any `GET` (a browser's `EventSource` cannot set headers: `api_key`
 * in the query, never logged).
 *
 * @module
 */
import type { Context } from 'hono';
import type { EndpointRecord } from '../../src/contract/registry.ts';
import type { AddressSource } from '../../src/config/http.ts';
import { addressPrefix } from '../address-prefix.ts';
import { type Computed, requestKey } from '../answer/answer.ts';
import type { ApiEnv } from '../context.ts';
import { HttpError } from '../errors.ts';
import { offeringDirect } from '../direct-body.ts';
import { clientAddress } from '../middleware/client-address.ts';
import { EventStream } from './event-stream.ts';
import type { LiveAnswers } from './live-answers.ts';
import type { LiveMetrics } from './live-metrics.ts';
import { whenChanged } from './when-changed.ts';
import type { StreamCaps } from './stream-caps.ts';

/** The media type of a live answer. */
export const EVENT_STREAM_TYPE = 'text/event-stream';

/** What the live form needs. */
export interface LiveRouteDeps {
  readonly live: LiveAnswers;
  readonly caps: StreamCaps;
  readonly metrics: LiveMetrics;
  /** Most bytes queued for a stream's client; beyond, it is cut. */
  readonly maxBufferedBytes: number;
  /** Where a client's address is read from, for the per-address cap. */
  readonly addressFrom: AddressSource;
  /** Every open stream: its heartbeats, and the end of all when the process stops. */
  readonly open: Set<EventStream>;
  /** A stream's reconnection delay, drawn for each (see `reconnectDelayMs`). */
  readonly reconnectMs: () => number;
}

/** A header that holds this nowhere accepts no event stream. */
const EVENT_STREAM_ANYWHERE = /text\/event-stream/i;

/** Whether the request asks for the live form: a `GET` that accepts an event stream. */
export function asksLive(c: Context<ApiEnv>): boolean {
  if (c.req.method !== 'GET') return false;
  const accept = c.req.header('Accept') ?? '';
  // Most requests accept no event stream: told apart without splitting their header.
  if (!EVENT_STREAM_ANYWHERE.test(accept)) return false;
  return accept.split(',').some((part) =>
    part.split(';')[0]?.trim().toLowerCase() === EVENT_STREAM_TYPE
  );
}

/** The live response of `record` for `params`, whose answer now is `first`. */
export function liveResponse(
  c: Context<ApiEnv>,
  deps: LiveRouteDeps,
  record: EndpointRecord,
  params: URLSearchParams,
  redactPii: boolean,
  first: Extract<Computed, { ok: true }>,
): Response {
  const caller = c.get('caller');
  if (caller === null) throw new HttpError('unauthorized', 'a live answer needs an API key');
  const address = clientAddress(c.req.raw, c.env.connection, deps.addressFrom);
  const place = deps.caps.take(caller, address === null ? null : addressPrefix(address));
  if (place instanceof HttpError) {
    deps.metrics.countRefused();
    throw place;
  }
  const key = `${requestKey(record, params)}${redactPii ? ':redacted' : ''}`;
  const stream: EventStream = new EventStream({
    maxBufferedBytes: deps.maxBufferedBytes,
    reconnectMs: deps.reconnectMs(),
    onEnd: (why) => {
      place.release();
      deps.open.delete(stream);
      deps.live.leave(key, stream);
      deps.metrics.countEnd(why);
    },
  });
  deps.open.add(stream);
  deps.live.join(
    { key, record, params, redactPii, ...whenChanged(record.name, params) },
    stream,
    first,
  );
  return offeringDirect(
    new Response(stream.body(), {
      status: 200,
      headers: {
        'Content-Type': `${EVENT_STREAM_TYPE}; charset=utf-8`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        // Proxies that buffer (nginx) would hold the events back.
        'X-Accel-Buffering': 'no',
      },
    }),
  );
}
