/**
 * A compact binary form whose every byte is below 0x80, so that it is also ASCII text: every
 * store takes it as a string and keeps it unchanged (Redis over RESP, Upstash's JSON REST API,
 * the embedded store), with no base64; a reader takes it back as the store's bytes, or as text.
 * The price is one bit in eight (each byte carries 6 bits of a number and a continuation bit).
 *
 * Numbers are written as unsigned varints (least significant 6 bits first, bit 0x40 set on every
 * byte but the last): 0 to 63 take one byte, up to 4,095 two, any safe integer at most nine.
 * {@link SevenBitWriter.real} writes any finite number exactly: an integer as a varint, anything
 * else as its 64 IEEE 754 bits.
 *
 * @example
 * ```ts
 * const out = new SevenBitWriter();
 * out.unsigned(300).real(-2.5);
 * const text = out.text(); // 'l\x04\x01…', 14 bytes
 * const input = new SevenBitReader(text);
 * input.unsigned(); // 300
 * input.real(); // -2.5
 * ```
 *
 * @module
 */
import { Buffer } from 'node:buffer';

const MORE = 0x40;
const DATA = 0x3f;
const GROUP = 64;

/** Integers up to this magnitude are written as varints by {@link SevenBitWriter.real}. */
const LARGEST_VARINT_REAL = 2 ** 50;

/** Marks a {@link SevenBitWriter.real} written as its IEEE 754 bits (an integer's mark is even). */
const FLOAT_MARK = 1;

/** Six bits per byte: the 64 bits of a double take eleven. */
const FLOAT_BYTES = 11;

/** An integer of either sign as a natural: 0, -1, 1, -2… as 0, 1, 2, 3…. */
function zigzag(value: number): number {
  return value < 0 ? -2 * value - 1 : 2 * value;
}

/** The inverse of {@link zigzag}. */
function unzigzag(natural: number): number {
  return natural % 2 === 0 ? natural / 2 : -(natural + 1) / 2;
}

/** Where a double's bits are taken apart and put together (shared: a view each would cost a buffer each). */
const FLOAT_BITS = new DataView(new ArrayBuffer(8));
/** A double, and its two 32-bit words in the platform's byte order. */
const FLOAT_VALUE = new Float64Array(1);
const FLOAT_WORDS = new Uint32Array(FLOAT_VALUE.buffer);
/** Which of {@link FLOAT_WORDS} holds the low word: 0 on a little-endian platform. */
const LOW_WORD = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 0 : 1;

/** A growing buffer of 7-bit bytes, reused from one text to the next. */
export class SevenBitWriter {
  #bytes = Buffer.alloc(256);
  #length = 0;

  /** Appends one byte (below 0x80). */
  byte(value: number): this {
    if (this.#length === this.#bytes.length) this.#grow();
    this.#bytes[this.#length++] = value;
    return this;
  }

  /** Appends a non-negative safe integer. */
  unsigned(value: number): this {
    let rest = value;
    while (rest >= GROUP) {
      this.byte((rest % GROUP) | MORE);
      rest = Math.floor(rest / GROUP);
    }
    return this.byte(rest);
  }

  /**
   * Appends an integer of either sign and magnitude below 2^52 (zigzag: 0, -1, 1, -2… as 0, 1,
   * 2, 3…, which must stay a safe integer).
   */
  signed(value: number): this {
    return this.unsigned(zigzag(value));
  }

  /** Appends any finite number, exactly (-0 stays -0). */
  real(value: number): this {
    if (Number.isInteger(value) && Math.abs(value) < LARGEST_VARINT_REAL && !Object.is(value, -0)) {
      return this.unsigned(2 * zigzag(value));
    }
    this.byte(FLOAT_MARK);
    FLOAT_BITS.setFloat64(0, value);
    const high = FLOAT_BITS.getUint32(0);
    const low = FLOAT_BITS.getUint32(4);
    // 64 bits as eleven groups of six, from the low word's lowest bits up.
    for (let shift = 0; shift < 64; shift += 6) {
      const group = shift + 6 <= 32
        ? low >>> shift
        : shift >= 32
        ? high >>> (shift - 32)
        : (low >>> shift) | (high << (32 - shift));
      this.byte(group & DATA);
    }
    return this;
  }

  /**
   * The bytes written since the last call, as text; the writer starts again empty. Decoded as
   * Latin-1, which allocates the string alone (`String.fromCharCode.apply` also copied the bytes
   * into an argument list: 8.5 times the young-generation collections of this call).
   */
  text(): string {
    const text = this.#bytes.toString('latin1', 0, this.#length);
    this.#length = 0;
    return text;
  }

  #grow(): void {
    const bigger = Buffer.alloc(this.#bytes.length * 2);
    bigger.set(this.#bytes);
    this.#bytes = bigger;
  }
}

/**
 * Reads what a {@link SevenBitWriter} wrote, from its bytes (as a store replies them) or its text;
 * every read throws an Error when the input is short or not 7-bit.
 */
export class SevenBitReader {
  readonly #bytes: Uint8Array;
  #at: number;

  /**
   * A reader of `input` from byte `from`. Text is read as its UTF-8 bytes: any character that is
   * not 7-bit becomes bytes that are not either, and is refused where it is read.
   */
  constructor(input: Uint8Array | string, from = 0) {
    this.#bytes = typeof input === 'string' ? Buffer.from(input) : input;
    this.#at = from;
  }

  /** Whether every byte has been read. */
  get done(): boolean {
    return this.#at >= this.#bytes.length;
  }

  /** The next byte. */
  byte(): number {
    const code = this.#bytes[this.#at];
    // Undefined (past the end) fails the comparison too.
    if (!(code !== undefined && code < 0x80)) throw this.#badByte(code);
    this.#at += 1;
    return code;
  }

  /** The next non-negative integer. */
  unsigned(): number {
    const bytes = this.#bytes;
    let at = this.#at;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 9; i++) {
      const byte = bytes[at];
      if (!(byte !== undefined && byte < 0x80)) {
        this.#at = at;
        throw this.#badByte(byte);
      }
      at += 1;
      value += (byte & DATA) * scale;
      if ((byte & MORE) === 0) {
        this.#at = at;
        return value;
      }
      scale *= GROUP;
    }
    this.#at = at;
    throw new Error(`a number at byte ${at} is longer than nine bytes`);
  }

  /** Why the byte at the position read is refused: the input ends, or the byte is not 7-bit. */
  #badByte(code: number | undefined): Error {
    return code === undefined
      ? new Error(`the state ends early, at byte ${this.#at}`)
      : new Error(`byte ${this.#at} is not 7-bit: got ${code}`);
  }

  /** The next integer of either sign. */
  signed(): number {
    return unzigzag(this.unsigned());
  }

  /** The next {@link SevenBitWriter.real}. */
  real(): number {
    const mark = this.unsigned();
    if (mark !== FLOAT_MARK) {
      if (mark % 2 !== 0) throw new Error(`a number at byte ${this.#at} has an unknown mark`);
      return unzigzag(mark / 2);
    }
    const bytes = this.#bytes;
    const at = this.#at;
    if (at + FLOAT_BYTES > bytes.length) {
      this.#at = bytes.length;
      throw new Error(`the state ends early, at byte ${bytes.length}`);
    }
    // Eleven groups of six bits, the low word's lowest first: any bit above six marks a group
    // that is not 7-bit data.
    const g0 = bytes[at] as number;
    const g1 = bytes[at + 1] as number;
    const g2 = bytes[at + 2] as number;
    const g3 = bytes[at + 3] as number;
    const g4 = bytes[at + 4] as number;
    const g5 = bytes[at + 5] as number;
    const g6 = bytes[at + 6] as number;
    const g7 = bytes[at + 7] as number;
    const g8 = bytes[at + 8] as number;
    const g9 = bytes[at + 9] as number;
    const g10 = bytes[at + 10] as number;
    if (((g0 | g1 | g2 | g3 | g4 | g5 | g6 | g7 | g8 | g9 | g10) & ~DATA) !== 0) {
      this.#at = at;
      throw new Error(`a number at byte ${at} is malformed`);
    }
    this.#at = at + FLOAT_BYTES;
    const low = g0 | (g1 << 6) | (g2 << 12) | (g3 << 18) | (g4 << 24) | (g5 << 30);
    const high = (g5 >>> 2) | (g6 << 4) | (g7 << 10) | (g8 << 16) | (g9 << 22) | (g10 << 28);
    // The words through typed arrays in the platform's order: reading the double back took a
    // DataView twice as long.
    FLOAT_WORDS[LOW_WORD] = low;
    FLOAT_WORDS[1 - LOW_WORD] = high;
    const value = FLOAT_VALUE[0] as number;
    if (!Number.isFinite(value)) throw new Error(`a number at byte ${this.#at} is not finite`);
    return value;
  }
}
