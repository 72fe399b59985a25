/**
 * A response whose body is given up when the client stops reading it: where the runtime offers
 * no write timeout (`Deno.serve`), the body stream itself notices that the runtime has not asked
 * for its next chunk for `writeTimeoutMs` (the runtime asks when the last one went out), and
 * errors, which makes the runtime close the connection and release the answer. Bodies of one
 * chunk or less (see `chunked-body.ts`) are left alone: the operating system's buffers take them
 * whole.
 *
 * @module
 */
import { CHUNK_BYTES } from '../answer/chunked-body.ts';

/** The error a cut body ends with. */
export class ClientNotReading extends Error {
  constructor(writeTimeoutMs: number) {
    super(`the client read none of the answer for ${writeTimeoutMs} ms: connection cut`);
    this.name = 'ClientNotReading';
  }
}

/**
 * `response`, its body cut when not read for `writeTimeoutMs`; `onCut` is told when it is.
 *
 * @example
 * ```ts
 * return cutWhenUnread(await fetch(request), 10_000, () => onRefusal('slow_reader'));
 * ```
 */
export function cutWhenUnread(
  response: Response,
  writeTimeoutMs: number,
  onCut: () => void,
): Response {
  const length = Number(response.headers.get('Content-Length') ?? Number.NaN);
  if (response.body === null || !(length > CHUNK_BYTES)) return response;
  const reader = response.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        clearTimeout(timer);
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        controller.enqueue(value);
        timer = setTimeout(() => {
          onCut();
          const error = new ClientNotReading(writeTimeoutMs);
          controller.error(error);
          void reader.cancel(error);
        }, writeTimeoutMs);
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
