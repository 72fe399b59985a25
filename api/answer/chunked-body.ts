/**
 * A large answer handed to the runtime in chunks rather than in one piece. Written in one piece,
 * an answer of megabytes is one write that completes only once the client has read all of it,
 * so a client that reads slowly cannot be told from one that does not read at all; in chunks,
 * each one taken is progress, and the runtime asks for the next only when the last was taken
 * (backpressure). The chunks are views of the answer's bytes: nothing is copied.
 *
 * @module
 */

/** Bytes of one chunk; an answer this size or smaller goes in one piece (the fast path). */
export const CHUNK_BYTES = 64 * 1024;

/**
 * `bytes` as a response body: itself when small, else a stream of {@link CHUNK_BYTES} views.
 *
 * @example
 * ```ts
 * new Response(chunkedBody(body), { headers: { 'Content-Length': String(body.byteLength) } });
 * ```
 */
export function chunkedBody(
  bytes: Uint8Array<ArrayBuffer>,
): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>> {
  if (bytes.byteLength <= CHUNK_BYTES) return bytes;
  let at = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      pull(controller) {
        controller.enqueue(bytes.subarray(at, at + CHUNK_BYTES));
        at += CHUNK_BYTES;
        if (at >= bytes.byteLength) controller.close();
      },
    },
    // Nothing read ahead: a chunk is made when the runtime asks for it.
    { highWaterMark: 0 },
  );
}
