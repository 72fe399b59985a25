/**
 * The one error of the exactly-once write path: a stream's stored offsets are not where its
 * writer left them, so the writer wrote nothing more and must reopen (see
 * {@link ./partition-writer.ts}). It names the stream and where the stream must be read again
 * from, when the conflict says so.
 *
 * @module
 */

/** Where a stream resumes after a conflict: an offset, or null for its earliest offset. */
export type RewindPoint = number | null;

/**
 * The earlier of two rewind points (null, the stream's start, is earliest; undefined, none).
 *
 * @example
 * ```ts
 * earlierRewind(7, 3); // 3
 * earlierRewind(7, null); // null
 * earlierRewind(undefined, 7); // 7
 * ```
 */
export function earlierRewind(
  a: RewindPoint | undefined,
  b: RewindPoint | undefined,
): RewindPoint | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a === null || b === null ? null : Math.min(a, b);
}

/** Something else wrote this stream, or the store lost or rolled back data; nothing more was written. */
export class OffsetConflictError extends Error {
  /** The stream whose offsets moved. */
  readonly stream: string;
  /**
   * Where the stream's next open resumes at the latest (null: its earliest offset), or undefined
   * when the conflict names no point and the stored resume offset decides alone.
   */
  readonly rewindTo: RewindPoint | undefined;

  constructor(stream: string, detail: string, rewindTo?: RewindPoint) {
    const from = rewindTo === undefined
      ? ''
      : `; it is read again from ${rewindTo === null ? 'its start' : `offset ${rewindTo}`}`;
    super(
      `stream ${stream}: ${detail} (another consumer took over the stream, or the store lost or ` +
        `rolled back data)${from}; reopen and resume where the store says`,
    );
    this.name = 'OffsetConflictError';
    this.stream = stream;
    this.rewindTo = rewindTo;
  }
}
