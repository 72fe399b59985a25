/**
 * Steps of the hostile-connection tests: a client that asks and does not read, waiting for what
 * the server does in its own time, and the refusal counters of `/metrics`.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import net from 'node:net';
import type { TestApp } from '../helpers/app.ts';

/**
 * Calls `check` every 50 ms until it is true (true) or 10 s have passed (false): for what the
 * server does on its own timers. A generous bound, never a measured duration.
 */
export async function untilTrue(check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** `http_refused_total{reason}` in `app`'s `/metrics` (0 when absent). */
export async function refusedCount(app: TestApp, reason: string): Promise<number> {
  const text = await (await app.api.fetch(new Request('http://x/metrics'))).text();
  const line = new RegExp(`^http_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return Number(line?.[1] ?? 0);
}

/** A request whose answer is left unread until {@link HeldAnswer.readRest}. */
export interface HeldAnswer {
  /** The client's socket (destroy it when done). */
  readonly socket: net.Socket;
  /**
   * Reads what is left until the server closes, or until the whole answer is in; the answer's
   * `Content-Length` and body bytes. With `slowly`, a reader that does read, slowly: about
   * `stepBytes`, then nothing for `pauseMs`, and again.
   */
  readRest(
    slowly?: { stepBytes: number; pauseMs: number },
  ): Promise<{ contentLength: number; bodyBytes: number }>;
}

/** Sends `GET path` with `key` and reads nothing of the answer (the socket is paused). */
export function answerWithHeld(port: number, path: string, key: string): HeldAnswer {
  const chunks: Buffer[] = [];
  const socket = net.connect(port, '127.0.0.1', () => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\n\r\n`);
  });
  socket.pause();
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
  return {
    socket,
    async readRest(slowly) {
      const measure = () => {
        const received = Buffer.concat(chunks);
        const headEnd = received.indexOf('\r\n\r\n');
        const head = received.subarray(0, Math.max(0, headEnd)).toString('latin1');
        const contentLength = Number(/^content-length: (\d+)$/im.exec(head)?.[1] ?? Number.NaN);
        return { contentLength, bodyBytes: headEnd < 0 ? 0 : received.byteLength - headEnd - 4 };
      };
      if (slowly !== undefined) {
        let stepEnd = 0;
        const step = () => {
          const sofar = measure();
          if (sofar.bodyBytes === sofar.contentLength) return;
          stepEnd = sofar.bodyBytes + slowly.stepBytes;
          socket.resume();
        };
        const whole = new Promise<void>((resolve) => {
          socket.on('data', () => {
            const sofar = measure();
            if (sofar.bodyBytes === sofar.contentLength) resolve();
            else if (sofar.bodyBytes >= stepEnd) {
              socket.pause();
              setTimeout(step, slowly.pauseMs);
            }
          });
        });
        step();
        await Promise.race([whole, closed]);
        return measure();
      }
      socket.resume();
      await closed;
      return measure();
    },
  };
}
