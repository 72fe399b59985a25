/**
 * Progress of a long replay: events published and bytes read, the rate, and an ETA from the
 * share of the input read (none for standard input, whose size is unknown). A redrawn line on a
 * terminal, plain lines every few seconds otherwise (CI logs, pipes).
 *
 * @module
 */

/** How far a replay has got. */
export interface ProgressFigures {
  /** Events the broker acknowledged. */
  readonly events: number;
  /** Bytes of input read (over every loop). */
  readonly bytes: number;
}

/** Reports progress toward `totalBytes` (null: unknown) on `stream`. */
export class Progress {
  readonly #totalBytes: number | null;
  readonly #stream: NodeJS.WriteStream;
  readonly #started = performance.now();
  #lastPrint = 0;

  constructor(totalBytes: number | null, stream: NodeJS.WriteStream = process.stderr) {
    this.#totalBytes = totalBytes;
    this.#stream = stream;
  }

  /** Records how far the replay has got; `final` prints whatever the time since the last. */
  update(figures: ProgressFigures, final = false): void {
    const now = performance.now();
    const tty = this.#stream.isTTY === true;
    if (!final && now - this.#lastPrint < (tty ? 100 : 5_000)) return;
    this.#lastPrint = now;
    const seconds = (now - this.#started) / 1000;
    const rate = seconds > 0 ? figures.events / seconds : 0;
    const share = this.#totalBytes === null || this.#totalBytes === 0
      ? null
      : Math.min(1, figures.bytes / this.#totalBytes);
    const eta = share === null || share === 0 ? null : seconds * (1 - share) / share;
    const parts = [
      share === null ? '' : `${(share * 100).toFixed(1)}%`,
      `${figures.events} events`,
      `${megabytes(figures.bytes)} read`,
      `${Math.round(rate)} events/s`,
      eta === null ? '' : `ETA ${eta.toFixed(0)} s`,
    ].filter((part) => part !== '');
    const line = parts.join('  ');
    if (tty) this.#stream.write(`\r${line}  ${final ? '\n' : ''}`);
    else this.#stream.write(`${line}\n`);
  }
}

/** `bytes` as megabytes with one decimal. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
