/**
 * The one error of the exactly-once write path: a stream's stored offsets are not where its
 * writer left them, so the writer wrote nothing more and must reopen (see
 * {@link ./partition-writer.ts}).
 *
 * @module
 */

/** Something else wrote this stream, or the store lost or rolled back data; nothing more was written. */
export class OffsetConflictError extends Error {
  constructor(stream: string, detail: string) {
    super(
      `stream ${stream}: ${detail} (another consumer took over the stream, or the store lost or ` +
        'rolled back data); reopen and resume where the store says',
    );
    this.name = 'OffsetConflictError';
  }
}
