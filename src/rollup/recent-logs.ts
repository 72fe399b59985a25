/**
 * The ring buffer of a project's newest edge log entries, as members of a sorted set scored by
 * the entry's timestamp (µs). Among equal timestamps the store orders members by their bytes, so
 * a member starts with the entry id (newest-first reads give ids descending, as the reference
 * evaluator orders ties), then a fixed-width position that keeps duplicates apart (earlier
 * arrival first), then the timestamp and the event's JSON text as received (JSON text never
 * holds a raw NUL, so the last NUL ends the timestamp). Each Logflare source's ring buffer of a
 * project (CONTRACT 3.1) keeps its entries in the same form.
 *
 * @module
 */
import { MAX_EVENT_AGE_US } from '../events/limits.ts';
import type { EdgeEvent, JsonObject, SourceLogEvent } from '../events/types.ts';
import type { WrittenMember } from '../store/port.ts';
import { ByteSlab } from '../text/byte-slab.ts';
import { CLOSE_BRACE, OPEN_BRACKET, QUOTE } from '../text/json-chars.ts';
import { fieldNames, skipSpace, topLevelFields } from '../text/json-fields.ts';
import { isReservedFormat, NewerStateFormatError, STATE_FORMATS } from './state-format.ts';

/** Default number of entries kept per project; its home is the configuration's defaults. */
export { DEFAULT_RECENT_LOGS_CAPACITY } from '../config/defaults.ts';

/** Oldest entry kept: the longest tier retention (90 days). */
export const RECENT_LOGS_MAX_AGE_US = MAX_EVENT_AGE_US;

/** A recent log entry as read back. */
export interface RecentLogEntry {
  readonly id: string;
  readonly timestampUs: number;
  readonly eventMessage: string | null;
  readonly metadata: JsonObject[];
}

const SEPARATOR = '\u0000';

/** The largest encodable offset: complements stay exact integers of at most 16 digits. */
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

/**
 * The sorted-set members of one stream's entries. A member's position identifies where its event
 * came from, see {@link logPosition}: unique per event, and the same each time the event is
 * written again (a replay of its stream), which is what lets a replayed stream write entries
 * outside its commits. An event that arrived as bytes gives its member as bytes, written in place
 * into a slab shared by the stream's members (a slab of its own per entry would take 64 KiB):
 * the head's UTF-8, its numbers written as digits, then the message's own bytes (the same bytes
 * as the text's, never encoded again). No text of the head is built for it.
 *
 * @example
 * ```ts
 * const members = new RecentLogMembers('logs.edge/3');
 * members.of(event, 1042); // { score: event.timestampUs, member: Uint8Array [...] }
 * ```
 */
export class RecentLogMembers {
  readonly #stream: string;
  /** `@` and the stream's name as UTF-8: the tail of each of its positions. */
  readonly #positionTail: Uint8Array;
  readonly #slab = new ByteSlab();

  /** The members of the entries of `stream` (named in each position). */
  constructor(stream: string) {
    this.#stream = stream;
    this.#positionTail = UTF8.encode(`${POSITION_MARK}${stream}`);
  }

  /**
   * The member of `event`, found at `offset` of the stream: an edge event's text as received, or a
   * Logflare source's event as normalized at ingest.
   */
  of(event: EdgeEvent | SourceLogEvent, offset: number): WrittenMember {
    const { id, timestampUs } = event;
    if (event.source !== 'edge') {
      const position = logPosition(this.#stream, offset);
      const head = `${id}${SEPARATOR}${position}${SEPARATOR}${timestampUs}${SEPARATOR}`;
      return { score: timestampUs, member: `${head}${event.text}` };
    }
    const raw = event.rawBytes ?? UTF8.encode(event.raw);
    const tail = this.#positionTail;
    // A UTF-16 unit takes at most 3 bytes; a number's text at most NUMBER_TEXT_MAX; the row at
    // most ROW_EXTRA_BYTES more than the event's text, and its format byte.
    const room = id.length * 3 + 3 * NUMBER_TEXT_MAX + tail.length + 4 + raw.byteLength +
      ROW_EXTRA_BYTES;
    const bytes = this.#slab.reserve(room);
    const start = this.#slab.start;
    let at = writeText(id, bytes, start);
    bytes[at++] = NUL;
    if (Number.isSafeInteger(offset) && offset >= 0) {
      writeDigits(MAX_POSITION - offset, POSITION_DIGITS, bytes, at);
      bytes.set(tail, at + POSITION_DIGITS);
      at += POSITION_DIGITS + tail.length;
    } else at = writeText(logPosition(this.#stream, offset), bytes, at);
    bytes[at++] = NUL;
    const timestampStart = at;
    at = writeNumber(timestampUs, bytes, at);
    const timestampEnd = at;
    bytes[at++] = NUL;
    // The answer's row, with its format byte; an event whose text gives no row (none that
    // parsing accepted) keeps its text, as the version before stored every entry.
    const rowEnd = findRowFields(raw, 0)
      ? writeRow(raw, bytes, timestampStart, timestampEnd, bytes, at + 1)
      : -1;
    if (rowEnd !== -1) {
      bytes[at] = ROW_FORMAT;
      return { score: timestampUs, member: this.#slab.keep(rowEnd - start) };
    }
    bytes.set(raw, at);
    return { score: timestampUs, member: this.#slab.keep(at + raw.byteLength - start) };
  }
}

/** The longest text `String` gives a number (`-1.2345678901234567e-308` and the like). */
const NUMBER_TEXT_MAX = 24;
/** Digits of a position: the complement of an offset, zero-padded. */
const POSITION_DIGITS = 16;
/** What separates a position's digits from its stream's name. */
const POSITION_MARK = '@';

/** Writes `text` as UTF-8 into `bytes` at `at`; the index after it. */
function writeText(text: string, bytes: Uint8Array, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return at + UTF8.encodeInto(text.slice(i), bytes.subarray(at)).written;
    bytes[at++] = code;
  }
  return at;
}

/** Writes `value` as `String` writes it into `bytes` at `at`; the index after it. */
function writeNumber(value: number, bytes: Uint8Array, at: number): number {
  if (!Number.isSafeInteger(value) || value < 0) return writeText(String(value), bytes, at);
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  writeDigits(value, digits, bytes, at);
  return at + digits;
}

/** Writes the last `digits` decimal digits of the integer `value` at `at`, zero-padded. */
function writeDigits(value: number, digits: number, bytes: Uint8Array, at: number): void {
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    bytes[i] = DIGIT_0 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
}

/**
 * Position text of an offset in a stream: the offset's complement at fixed width, so that in
 * the newest-first (descending) reads of the store an earlier arrival sorts first among entries
 * of equal timestamp and id, as `src/events/order.ts`'s input-order tie-break says.
 */
export function logPosition(stream: string, offset: number): string {
  return `${String(MAX_POSITION - offset).padStart(POSITION_DIGITS, '0')}${POSITION_MARK}${stream}`;
}

const ROW_FIELDS = fieldNames(['id', 'event_message', 'metadata']);

/** The first byte of an entry stored in the answer's row form. */
const ROW_FORMAT = STATE_FORMATS.recentLogRowV1;

const UTF8 = new TextEncoder();
const DECODER = new TextDecoder();
const ROW_START = UTF8.encode('{"id":');
const ROW_TIMESTAMP = UTF8.encode(',"timestamp":');
const ROW_MESSAGE = UTF8.encode(',"event_message":');
const ROW_METADATA = UTF8.encode(',"metadata":');
const NULL = UTF8.encode('null');
/** The separator as the byte readers look for. */
const NUL = SEPARATOR.charCodeAt(0);
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * The most bytes a row takes beyond its member's length (a row holds the member's id, timestamp,
 * `event_message` and `metadata` values, never longer than they are stored, and these names).
 */
export const ROW_EXTRA_BYTES = ROW_START.length + ROW_TIMESTAMP.length + ROW_MESSAGE.length +
  ROW_METADATA.length + NULL.length + 1;

/**
 * Whether `member[start, end)` is an integer of at most 16 digits written as `String` writes it
 * (as {@link recentLogMember} stores it): then those bytes are the row's timestamp.
 */
function isTimestamp(member: Uint8Array, start: number, end: number): boolean {
  const first = member[start] === MINUS ? start + 1 : start;
  const digits = end - first;
  if (digits < 1 || digits > 16) return false;
  // No leading zero, and no "-0" (String writes 0).
  if (member[first] === DIGIT_0 && (digits > 1 || first > start)) return false;
  let value = 0;
  for (let i = first; i < end; i++) {
    const code = member[i] ?? 0;
    if (code < DIGIT_0 || code > DIGIT_9) return false;
    value = value * 10 + code - DIGIT_0;
  }
  return Number.isSafeInteger(value);
}

/** Scratch for the spans of {@link ROW_FIELDS}: a row is written synchronously, one at a time. */
const spans = new Int32Array(2 * ROW_FIELDS.names.length);

/** Copies `member[start, end)` into `out` at `at`; the index after it. */
function copy(member: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  const length = end - start;
  if (length < 64) {
    for (let i = 0; i < length; i++) out[at + i] = member[start + i] ?? 0;
  } else {
    // A plain view: `subarray` of a Buffer builds a Buffer, which costs more than short copies.
    out.set(new Uint8Array(member.buffer, member.byteOffset + start, length), at);
  }
  return at + length;
}

/** Copies the whole of `bytes` into `out` at `at`; the index after it. */
function put(bytes: Uint8Array, out: Uint8Array, at: number): number {
  return copy(bytes, 0, bytes.length, out, at);
}

/**
 * Finds the row's fields (`id`, `event_message`, `metadata`) of the event text `text[from, end)`
 * into {@link spans}; false when the text gives no row (it must fill `text` to its end, and its
 * id be a string and its metadata an array).
 */
function findRowFields(text: Uint8Array, from: number): boolean {
  const end = topLevelFields(text, from, ROW_FIELDS, spans);
  return end !== -1 && skipSpace(text, end) === text.length &&
    text[spans[0] ?? -1] === QUOTE && text[spans[4] ?? -1] === OPEN_BRACKET;
}

/**
 * Writes the row of the fields {@link findRowFields} found last in `text`, with the timestamp
 * `timestamp[timestampStart, timestampEnd)`, into `out` at `at`; the index after it.
 */
function writeRow(
  text: Uint8Array,
  timestamp: Uint8Array,
  timestampStart: number,
  timestampEnd: number,
  out: Uint8Array,
  at: number,
): number {
  const [
    idStart = -1,
    idEnd = -1,
    messageStart = -1,
    messageEnd = -1,
    metadataStart = -1,
    metadataEnd = -1,
  ] = spans;
  let i = put(ROW_START, out, at);
  i = copy(text, idStart, idEnd, out, i);
  i = put(ROW_TIMESTAMP, out, i);
  i = copy(timestamp, timestampStart, timestampEnd, out, i);
  i = put(ROW_MESSAGE, out, i);
  i = messageStart !== -1 && text[messageStart] === QUOTE
    ? copy(text, messageStart, messageEnd, out, i)
    : put(NULL, out, i);
  i = put(ROW_METADATA, out, i);
  i = copy(text, metadataStart, metadataEnd, out, i);
  out[i] = CLOSE_BRACE;
  return i + 1;
}

/**
 * Writes the row of a member stored as the version before stored every entry (its event's text
 * after the timestamp that follows `member[timestampStart]` and the NUL at `rawStart`) into `out`
 * at `at`; the index after it, or -1 when that is not a row.
 */
function writeTextRowAt(
  member: Uint8Array,
  timestampStart: number,
  rawStart: number,
  out: Uint8Array,
  at: number,
): number {
  if (timestampStart < 0 || !isTimestamp(member, timestampStart + 1, rawStart)) return -1;
  if (!findRowFields(member, rawStart + 1)) return -1;
  return writeRow(member, member, timestampStart + 1, rawStart, out, at);
}

/**
 * Copies the row of a member stored in the row form (its format byte at `formatAt`) into `out` at
 * `at`; the index after it, or -1 when what follows is not a row.
 */
function copyRowAt(member: Uint8Array, formatAt: number, out: Uint8Array, at: number): number {
  const rowStart = formatAt + 1;
  if (member.length - rowStart < ROW_START.length + 1 || member.at(-1) !== CLOSE_BRACE) return -1;
  for (let i = 0; i < ROW_START.length; i++) {
    if (member[rowStart + i] !== ROW_START[i]) return -1;
  }
  return copy(member, rowStart, member.length, out, at);
}

/**
 * Writes the `logs.all` row of a member (its UTF-8 bytes) into `out` at `at`, as JSON copied from
 * the stored event's bytes without decoding or parsing them:
 * `{"id":…,"timestamp":…,"event_message":…,"metadata":…}`, the same row {@link parseRecentLog}
 * reads (an `event_message` that is not a string is null). Answers the index after the row; `out`
 * needs `member.length + ROW_EXTRA_BYTES` bytes of room. Throws an Error naming a corrupt member,
 * as {@link parseRecentLog} does.
 *
 * @example
 * ```ts
 * const [member] = await store.rangeByScore(recentLogsKey(project), range); // as bytes
 * const out = new Uint8Array(member.length + ROW_EXTRA_BYTES);
 * const end = writeRecentLogRow(member, out, 0);
 * new TextDecoder().decode(out.subarray(0, end));
 * // '{"id":"a","timestamp":1795256130000000,"event_message":"GET","metadata":[…]}'
 * ```
 */
export function writeRecentLogRow(member: Uint8Array, out: Uint8Array, at: number): number {
  // Only the id may hold a NUL (JSON text never does), so a member with exactly three has them
  // as its separators; otherwise they are its last two. Searched from the front first: a Buffer
  // (as read from Redis) finds a byte natively.
  const first = member.indexOf(NUL);
  const second = first === -1 ? -1 : member.indexOf(NUL, first + 1);
  const third = second === -1 ? -1 : member.indexOf(NUL, second + 1);
  const forward = third !== -1 && member.indexOf(NUL, third + 1) === -1;
  const rawStart = forward ? third : member.lastIndexOf(NUL);
  const timestampStart = forward ? second : member.lastIndexOf(NUL, rawStart - 1);
  const format = member[rawStart + 1] ?? -1;
  if (rawStart > 0 && format === ROW_FORMAT) {
    const end = copyRowAt(member, rawStart + 1, out, at);
    if (end === -1) throw malformed(member);
    return end;
  }
  if (rawStart > 0 && isReservedFormat(format)) throw new NewerStateFormatError(format);
  const end = rawStart <= 0 ? -1 : writeTextRowAt(member, timestampStart, rawStart, out, at);
  if (end === -1) throw malformed(member);
  return end;
}

/**
 * The length of `member`'s head: its id, position and timestamp with their separators, up to and
 * including the last NUL (JSON text never holds one); 0 for a member without one. The head names
 * the event: every write of it (a replay too) gives a member of the same head, and a member is
 * written whole, never changed in place.
 */
export function recentLogHeadLength(member: Uint8Array): number {
  return member.lastIndexOf(NUL) + 1;
}

/**
 * Whether two members hold the same event: the same head ({@link recentLogHeadLength}), whatever
 * form follows. `previous` may be undefined.
 */
export function sameEntry(previous: Uint8Array | undefined, member: Uint8Array): boolean {
  if (previous === undefined) return false;
  const shorter = Math.min(previous.length, member.length);
  let common = 0;
  while (common < shorter && previous[common] === member[common]) common++;
  // Members of different ids part before the first NUL: the common case costs no more.
  if (member.indexOf(NUL) >= common) return false;
  const head = recentLogHeadLength(member);
  return head <= common && recentLogHeadLength(previous) === head;
}

/** The error of a corrupt member, quoting its first 80 bytes only (it may hold personal data). */
function malformed(member: Uint8Array): Error {
  return new Error(`recent log member is malformed: ${DECODER.decode(member.subarray(0, 80))}`);
}

/**
 * Reads an entry back from its member (its UTF-8 bytes) as values: the row
 * {@link writeRecentLogRow} writes, parsed. Throws an Error naming a corrupt member, also one whose
 * row would not be valid JSON.
 */
export function parseRecentLog(member: Uint8Array): RecentLogEntry {
  const out = new Uint8Array(member.length + ROW_EXTRA_BYTES);
  const row = DECODER.decode(out.subarray(0, writeRecentLogRow(member, out, 0)));
  try {
    const { id, timestamp, event_message: message, metadata } = JSON.parse(row) as {
      id: string;
      timestamp: number;
      event_message: string | null;
      metadata: JsonObject[];
    };
    return { id, timestampUs: timestamp, eventMessage: message, metadata };
  } catch {
    throw malformed(member);
  }
}

/** One kept event of a source. */
export interface SourceLogEntry {
  readonly id: string;
  readonly timestampUs: number;
  /** The event as normalized at ingest (JSON text). */
  readonly text: string;
}

/** One kept event of a source, its text as the stored UTF-8 bytes (a view, not a copy). */
export interface SourceLogBytes {
  readonly id: string;
  readonly timestampUs: number;
  /** The event as normalized at ingest (JSON text, UTF-8). */
  readonly json: Uint8Array;
}

/**
 * The entry of a stored member (`id NUL position NUL timestamp NUL text`, {@link RecentLogMembers})
 * with its text left as bytes; throws an Error naming a corrupt member. Only the id may hold a
 * NUL (JSON text never does), so the last three NULs are the separators.
 */
export function sourceLogBytes(member: Uint8Array): SourceLogBytes {
  const textNul = member.lastIndexOf(NUL);
  const timestampNul = textNul <= 0 ? -1 : member.lastIndexOf(NUL, textNul - 1);
  const positionNul = timestampNul <= 0 ? -1 : member.lastIndexOf(NUL, timestampNul - 1);
  const timestamp = DECODER.decode(member.subarray(timestampNul + 1, textNul));
  if (positionNul < 0 || !/^-?\d{1,16}$/.test(timestamp)) {
    throw new Error(`source log member is malformed: ${DECODER.decode(member.subarray(0, 80))}`);
  }
  return {
    id: DECODER.decode(member.subarray(0, positionNul)),
    timestampUs: Number(timestamp),
    json: member.subarray(textNul + 1),
  };
}

/** The entry of a stored member, its text decoded ({@link sourceLogBytes}). */
export function sourceLogEntry(member: Uint8Array): SourceLogEntry {
  const { id, timestampUs, json } = sourceLogBytes(member);
  return { id, timestampUs, text: DECODER.decode(json) };
}
