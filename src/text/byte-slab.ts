/**
 * Small byte arrays carved out of larger ones: allocating an `ArrayBuffer` per small array (a
 * ring-buffer entry of about 1 KB per event) costs V8 a backing store, its accounting and its
 * finalization each time, more than the bytes themselves. A slab is dropped once every array
 * carved from it is.
 *
 * An array is written in place, then kept: {@link ByteSlab.reserve} gives room for at most so
 * many bytes in the slab itself, from {@link ByteSlab.start}, and {@link ByteSlab.keep} hands out
 * the one view of those actually written (the rest of the room is used by the next array).
 *
 * @example
 * ```ts
 * const slab = new ByteSlab();
 * const bytes = slab.reserve(100);
 * bytes[slab.start] = 0x41;
 * slab.keep(1); // a view of 1 byte into a 64 KiB slab
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
  /** The array of its own of the reservation in progress, when it is too large for a slab. */
  #own: Uint8Array | null = null;

  /**
   * Room for at most `length` bytes: the array to write them into, from {@link start} on (their
   * contents unspecified until written). Until {@link keep}, no other array is reserved.
   */
  reserve(length: number): Uint8Array {
    if (length > SLAB_BYTES / 4) {
      this.#own = new Uint8Array(length);
      return this.#own;
    }
    this.#own = null;
    if (this.#used + length > this.#slab.length) {
      this.#slab = new Uint8Array(SLAB_BYTES);
      this.#used = 0;
    }
    return this.#slab;
  }

  /** Where the room of the last {@link reserve} starts in the array it returned. */
  get start(): number {
    return this.#own === null ? this.#used : 0;
  }

  /** The first `length` bytes of the last {@link reserve}'s room, as one view; the rest is free. */
  keep(length: number): Uint8Array {
    const own = this.#own;
    if (own !== null) {
      this.#own = null;
      return length === own.length ? own : own.subarray(0, length);
    }
    const view = this.#slab.subarray(this.#used, this.#used + length);
    this.#used += length;
    return view;
  }
}
