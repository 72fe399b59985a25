/**
 * One live stream's body: server-sent events (`text/event-stream`), each an answer whole on
 * `data:` lines with its entity tag as the event's `id`, and a comment at each heartbeat (one
 * timer for every stream of the process, live-setup.ts) so that proxies keep an idle stream
 * open. What the client has not taken yet is bounded: a reader too slow to take an answer before
 * the next ones pile past `maxBufferedBytes` is cut (a cut client reconnects and gets the answer
 * of the moment, which is all it needs).
 *
 * @module
 */

import { type ByteSink, type DirectSource, offerDirect } from '../direct-body.ts';

const ENCODER = new TextEncoder();
const HEARTBEAT = ENCODER.encode(': heartbeat\n\n');
const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** Why a stream ended, as its metrics count it. */
export type StreamEnd = 'client' | 'slow_reader' | 'shutdown';

/** Options of {@link EventStream}. */
export interface EventStreamOptions {
  /** Most bytes queued for a client that has not taken them; beyond, the stream is cut. */
  readonly maxBufferedBytes: number;
  /** Told once, when the stream ends, and why. */
  readonly onEnd: (why: StreamEnd) => void;
  /**
   * How long the client should wait before it reconnects when the stream ends (the `retry`
   * field, sent first); absent: the client's own delay.
   */
  readonly reconnectMs?: number;
}

/**
 * A stream of answers, written as they come: to the connection when the runtime adapter takes
 * the body over (api/direct-body.ts), else through `body` as a web stream. Until one of them
 * starts, what is sent waits here, under the same bound.
 */
export class EventStream implements DirectSource {
  readonly #options: EventStreamOptions;
  #sink: ByteSink | null = null;
  #waiting: Uint8Array[] = [];
  #waitingBytes = 0;
  #ended = false;
  #lastEtag: string | null = null;

  constructor(options: EventStreamOptions) {
    this.#options = options;
    // A block with no data: the client takes the field and dispatches no event.
    if (options.reconnectMs !== undefined) {
      this.#write(ENCODER.encode(`retry: ${Math.round(options.reconnectMs)}\n\n`));
    }
  }

  /**
   * The stream as a response body, offered to the runtime adapter to write itself. Not kept here:
   * once an adapter takes the stream over, nothing holds the web stream.
   */
  body(): ReadableStream<Uint8Array> {
    // A high-water mark of 0: nothing is pulled before a reader reads, so an adapter that writes
    // the stream itself finds it untouched; what is queued counts against the stream's bound.
    const body = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          if (this.#sink === null) this.attach(webSink(controller));
        },
        cancel: () => this.gone(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
    );
    offerDirect(body, this);
    return body;
  }

  /** Whether the stream has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  attach(sink: ByteSink): void {
    if (this.#sink !== null) return;
    this.#sink = sink;
    if (this.#ended) {
      sink.end();
      return;
    }
    for (const bytes of this.#waiting) sink.write(bytes);
    this.#waiting = [];
    this.#waitingBytes = 0;
  }

  gone(): void {
    this.#end('client');
  }

  /** Sends `body` as the next event, unless it is the answer last sent (same entity tag). */
  send(body: Uint8Array, etag: string): void {
    if (this.#ended || etag === this.#lastEtag) return;
    this.sendEvent(eventBytes(body, etag), etag);
  }

  /**
   * Sends an event already framed ({@link eventBytes}) unless it is of the answer last sent:
   * one answer pushed to many streams is framed once, and its bytes shared. Whether it was sent.
   */
  sendEvent(event: Uint8Array, etag: string): boolean {
    if (this.#ended || etag === this.#lastEtag) return false;
    this.#lastEtag = etag;
    this.#write(event);
    return !this.#ended;
  }

  /** Sends a comment, so that proxies keep an idle stream open (the owner's timer calls it). */
  heartbeat(): void {
    this.#write(HEARTBEAT);
  }

  /** Ends the stream from this side (the process stops). */
  close(): void {
    if (this.#ended) return;
    this.#end('shutdown');
    this.#sink?.end();
  }

  #write(bytes: Uint8Array): void {
    if (this.#ended) return;
    const sink = this.#sink;
    const queued = sink === null ? this.#waitingBytes : sink.queuedBytes();
    if (queued > this.#options.maxBufferedBytes) {
      // What was queued before is still not taken: the reader is too slow for its answers.
      this.#end('slow_reader');
      sink?.cut(new Error('the client took too long to read its live answers'));
      return;
    }
    if (sink !== null) {
      sink.write(bytes);
      return;
    }
    this.#waiting.push(bytes);
    this.#waitingBytes += bytes.length;
  }

  #end(why: StreamEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#waiting = [];
    this.#options.onEnd(why);
  }
}

/** The sink of a stream read as a web stream: its queue is the controller's. */
function webSink(controller: ReadableStreamDefaultController<Uint8Array>): ByteSink {
  return {
    write: (bytes) => controller.enqueue(bytes),
    // With a high-water mark of 0, the desired size is minus the bytes queued.
    queuedBytes: () => -(controller.desiredSize ?? 0),
    end: () => controller.close(),
    cut: (reason) => controller.error(reason),
  };
}

/**
 * One event: `id: <etag>`, then the answer on `data:` lines (an answer is JSON, whose line breaks
 * can only be whitespace between tokens: a client joins the lines with `\n` and reads the same
 * value), then a blank line.
 */
export function eventBytes(body: Uint8Array, etag: string): Uint8Array {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= body.length; i++) {
    const byte = body[i];
    if (i < body.length && byte !== NEWLINE && byte !== RETURN) continue;
    lines.push(body.subarray(start, i));
    start = i + 1;
  }
  const head = ENCODER.encode(`id: ${etag.replace(/[\r\n]/g, '')}\n`);
  const prefix = ENCODER.encode('data: ');
  let length = head.length + 1;
  for (const line of lines) length += prefix.length + line.length + 1;
  const out = new Uint8Array(length);
  out.set(head, 0);
  let at = head.length;
  for (const line of lines) {
    out.set(prefix, at);
    at += prefix.length;
    out.set(line, at);
    at += line.length;
    out[at++] = NEWLINE;
  }
  out[at] = NEWLINE;
  return out;
}
