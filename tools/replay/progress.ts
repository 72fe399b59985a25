/**
 * Progress of a long run: a redrawn bar with events/s and ETA on a terminal, plain lines every
 * few seconds otherwise (CI logs, pipes).
 *
 * @module
 */

/** Reports progress toward `total` on `stream`. */
export class Progress {
  readonly #total: number;
  readonly #stream: NodeJS.WriteStream;
  readonly #started = performance.now();
  #lastPrint = 0;

  constructor(total: number, stream: NodeJS.WriteStream = process.stderr) {
    this.#total = total;
    this.#stream = stream;
  }

  /** Records that `done` of the total are done. */
  update(done: number): void {
    const now = performance.now();
    const tty = this.#stream.isTTY === true;
    if (now - this.#lastPrint < (tty ? 100 : 5_000) && done < this.#total) return;
    this.#lastPrint = now;
    const seconds = (now - this.#started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? (this.#total - done) / rate : Number.POSITIVE_INFINITY;
    const share = this.#total > 0 ? done / this.#total : 1;
    const figures = `${done}/${this.#total} events  ${Math.round(rate)} events/s  ETA ${
      Number.isFinite(eta) ? `${eta.toFixed(0)} s` : '?'
    }`;
    if (tty) {
      const width = 30;
      const filled = Math.round(share * width);
      this.#stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${figures}  `);
      if (done >= this.#total) this.#stream.write('\n');
    } else {
      this.#stream.write(`${(share * 100).toFixed(1)}% ${figures}\n`);
    }
  }
}
