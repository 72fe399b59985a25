/**
 * A session with the V8 inspector of another Node process (started with
 * `--inspect=127.0.0.1:<port>`), over the Chrome DevTools Protocol: what a benchmark uses to run
 * a profiler inside the process it measures for exactly its window.
 *
 * @example
 * ```ts
 * const session = await InspectorSession.connect(port);
 * await session.send('HeapProfiler.startSampling', { samplingInterval: 32768 });
 * const { profile } = await session.send('HeapProfiler.stopSampling');
 * session.close();
 * ```
 *
 * @module
 */

/** One target of `/json/list`, as the inspector describes it. */
interface InspectorTarget {
  readonly webSocketDebuggerUrl?: string;
}

/** A reply of the protocol: the result of the call of the same id, or its error. */
interface ProtocolReply {
  readonly id?: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** How long a call may wait for its reply, in ms (stopping a profiler on a busy process). */
const REPLY_DEADLINE_MS = 120_000;

/** A DevTools Protocol session with one process. */
export class InspectorSession {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, (reply: ProtocolReply) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const reply = JSON.parse(String(event.data)) as ProtocolReply;
      if (reply.id === undefined) return;
      this.#waiting.get(reply.id)?.(reply);
      this.#waiting.delete(reply.id);
    });
  }

  /**
   * Connects to the inspector listening on loopback at `port`, retrying until `deadlineMs` (the
   * process may not listen yet).
   */
  static async connect(port: number, deadlineMs = 60_000): Promise<InspectorSession> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      try {
        const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`))
          .json() as InspectorTarget[];
        const url = targets[0]?.webSocketDebuggerUrl;
        if (url === undefined) throw new Error(`the inspector at ${port} lists no target`);
        const socket = new WebSocket(url);
        await new Promise<void>((resolve, reject) => {
          socket.addEventListener('open', () => resolve(), { once: true });
          socket.addEventListener('error', () => reject(new Error(`could not open ${url}`)), {
            once: true,
          });
        });
        return new InspectorSession(socket);
      } catch (error) {
        if (Date.now() > until) {
          throw new Error(`no inspector answered on 127.0.0.1:${port} in ${deadlineMs} ms`, {
            cause: error,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** Calls `method` with `params`; resolves with its result, rejects with its error. */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`${method} had no reply in ${REPLY_DEADLINE_MS} ms`));
      }, REPLY_DEADLINE_MS);
      this.#waiting.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error !== undefined) reject(new Error(`${method}: ${reply.error.message}`));
        else resolve(reply.result ?? {});
      });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Ends the session (the process goes on). */
  close(): void {
    this.#socket.close();
  }
}
