/**
 * A reader of server-sent events for the live-answer tests: the events of a `text/event-stream`
 * body as they arrive (`id` and the `data` lines joined by `\n`), comments (heartbeats) counted.
 *
 * @module
 */

/** One event. */
export interface ServerEvent {
  readonly id: string | null;
  readonly data: string;
  /** When it arrived, Unix ms. */
  readonly atMs: number;
}

/** Reads `body` in the background; {@link next} waits for the next event. */
export class EventReader {
  readonly events: ServerEvent[] = [];
  comments = 0;
  /** The last `retry` field: how long the client should wait before it reconnects, in ms. */
  retryMs: number | null = null;
  ended = false;
  readonly #waiters: (() => void)[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #taken = 0;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
    void this.#read();
  }

  /** The next event not yet taken, or null when none arrives within `ms`. */
  async next(ms = 5_000): Promise<ServerEvent | null> {
    const deadline = Date.now() + ms;
    while (this.#taken >= this.events.length && !this.ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const event = this.events[this.#taken];
    if (event === undefined) return null;
    this.#taken += 1;
    return event;
  }

  /** Stops reading (the client goes away). */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for (;;) {
        const { done, value } = await this.#reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        let end = text.indexOf('\n\n');
        while (end >= 0) {
          this.#take(text.slice(0, end));
          text = text.slice(end + 2);
          end = text.indexOf('\n\n');
        }
      }
    } catch {
      // Cut or cancelled: what arrived stays.
    }
    this.ended = true;
    this.#wake();
  }

  #take(block: string): void {
    let id: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments += 1;
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('retry: ')) this.retryMs = Number(line.slice(7));
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) this.events.push({ id, data: data.join('\n'), atMs: Date.now() });
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}
