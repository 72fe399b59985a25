/**
 * An ingest body in the `Content-Encoding` it was sent in: gzip (`x-gzip` too) and deflate are
 * decompressed as the body arrives, as Logflare takes them; anything else is refused. The
 * compressed bytes reach the decompressor in pieces of at most {@link PIECE_BYTES}, so that what
 * one piece inflates to stays small whatever the runtime does with a piece (Deno's
 * `DecompressionStream` inflates a whole written chunk at once, about 1,000 times its size at
 * most): the reader's byte limit then stops a body that inflates too far within a few MiB of it.
 *
 * @module
 */
import { HttpError } from '../errors.ts';

/** Most compressed bytes handed to the decompressor at once (inflating to at most ~1 MiB). */
export const PIECE_BYTES = 1024;

/** The decompression of each `Content-Encoding` taken (null: none). */
const DECODINGS: ReadonlyMap<string, CompressionFormat | null> = new Map([
  ['', null],
  ['identity', null],
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['deflate', 'deflate'],
]);

/** A body to read: its decompressed stream, and whether it was compressed. */
export interface DecodedBody {
  readonly stream: ReadableStream<Uint8Array>;
  readonly compressed: boolean;
}

/** Splits each chunk into views of at most {@link PIECE_BYTES} (no copies). */
function inPieces(): TransformStream<Uint8Array, Uint8Array<ArrayBuffer>> {
  return new TransformStream({
    transform(chunk, controller) {
      // A request body's chunks are views of ordinary ArrayBuffers, never shared ones.
      const bytes = chunk as Uint8Array<ArrayBuffer>;
      for (let at = 0; at < bytes.byteLength; at += PIECE_BYTES) {
        controller.enqueue(bytes.subarray(at, at + PIECE_BYTES));
      }
    },
  });
}

/**
 * `body` as its request's `Content-Encoding` says it is to be read; 400 `invalid_body` for an
 * encoding not taken.
 *
 * @example
 * ```ts
 * const { stream } = decodedBody(request, request.body); // gunzipped when sent as gzip
 * ```
 */
export function decodedBody(request: Request, body: ReadableStream<Uint8Array>): DecodedBody {
  const encoding = (request.headers.get('Content-Encoding') ?? '').trim().toLowerCase();
  const format = DECODINGS.get(encoding);
  if (format === undefined) {
    throw new HttpError(
      'invalid_body',
      `the body's Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not one this ` +
        'service decodes: send it as gzip, deflate or uncompressed',
    );
  }
  if (format === null) return { stream: body, compressed: false };
  const stream = body.pipeThrough(inPieces()).pipeThrough(new DecompressionStream(format));
  return { stream, compressed: true };
}
