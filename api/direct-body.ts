/**
 * A response body that a runtime adapter may write straight to its connection instead of reading
 * it as a web stream. A live answer's stream (api/live/event-stream.ts) is open for as long as its
 * client watches, thousands at once: on Node, a `ReadableStream` piped to the socket costs each of
 * them a reader, its promises and its queue (4 of a stream's 15 KB of heap, and 14% of the API's
 * CPU per push; docs/benchmarks-history.md, "Live answers: a stream's memory, issue 53"). The body
 * stays a `ReadableStream` for every other reader (Deno's server, a test calling the app), so the
 * app has one way to answer; the Node adapter looks the body up here and, when it is offered,
 * writes the response's head itself and hands the source its connection as a {@link ByteSink}.
 *
 * @module
 */

/** Where a body's bytes go: the client's connection, or the body's own web stream. */
export interface ByteSink {
  /** Queues `bytes` for the client. */
  write(bytes: Uint8Array): void;
  /** Bytes written that the client has not taken yet. */
  queuedBytes(): number;
  /** Ends the response after what is queued. */
  end(): void;
  /** Ends the connection at once: the client is cut, `reason` says why. */
  cut(reason: Error): void;
}

/** A body that writes itself once given its sink. */
export interface DirectSource {
  /** Starts writing to `sink` (at most once). */
  attach(sink: ByteSink): void;
  /** The client went away, or was cut: the sink takes nothing more. */
  gone(): void;
}

const offered = new WeakMap<ReadableStream<Uint8Array>, DirectSource>();
/** The responses whose body may have been offered: the only ones an adapter looks into. */
const offering = new WeakSet<Response>();

/** Offers `body` to be written by `source` instead of read (see the module's notes). */
export function offerDirect(body: ReadableStream<Uint8Array>, source: DirectSource): void {
  offered.set(body, source);
}

/**
 * `response`, marked as one whose body may have been offered: an adapter asks no other
 * response for its body or its headers (on Node, asking either of a plain answer copies it).
 */
export function offeringDirect(response: Response): Response {
  offering.add(response);
  return response;
}

/** Whether `response` was marked by {@link offeringDirect}. */
export function mayOfferDirect(response: Response): boolean {
  return offering.has(response);
}

/** The source that writes `body`, if it was offered and nobody has read it; else undefined. */
export function directSource(body: ReadableStream<Uint8Array> | null): DirectSource | undefined {
  if (body === null || body.locked) return undefined;
  const source = offered.get(body);
  offered.delete(body);
  return source;
}
