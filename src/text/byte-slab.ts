/**
 * Small byte arrays carved out of larger ones: allocating an `ArrayBuffer` per small array (a
 * ring-buffer entry of about 1 KB per event) costs V8 a backing store, its accounting and its
 * finalization each time, more than the bytes themselves. A slab is dropped once every array
 * carved from it is.
 *
 * @example
 * ```ts
 * const slab = new ByteSlab();
 * const bytes = slab.take(100); // a view of 100 bytes into a 64 KiB slab
 * ```
 *
 * @module
 */

/** Bytes of one slab. */
const SLAB_BYTES = 64 * 1024;

/** Hands out views into shared slabs; an array larger than a quarter slab gets its own. */
export class ByteSlab {
  #slab = new Uint8Array(0);
  #used = 0;
  /** Whether the last view taken is of the slab (not an array of its own). */
  #lastOfSlab = false;

  /** A view of `length` bytes (their contents unspecified until written). */
  take(length: number): Uint8Array {
    this.#lastOfSlab = length <= SLAB_BYTES / 4;
    if (!this.#lastOfSlab) return new Uint8Array(length);
    if (this.#used + length > this.#slab.length) {
      this.#slab = new Uint8Array(SLAB_BYTES);
      this.#used = 0;
    }
    const view = this.#slab.subarray(this.#used, this.#used + length);
    this.#used += length;
    return view;
  }

  /** Gives back the last `length` bytes of the last view taken, unused: later views reuse them. */
  giveBack(length: number): void {
    if (this.#lastOfSlab) this.#used -= length;
  }
}
