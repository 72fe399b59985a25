/**
 * Reads replay inputs as they stream: files (gunzipped on the fly when named `.gz`) or standard
 * input, split into lines without ever holding more than one line. A line longer than the
 * broker takes is skipped (and counted) without being held whole, so memory stays flat however
 * large the input.
 *
 * @module
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { ReplayInput } from './flags.ts';
import { messageOf } from '../../src/text/error-message.ts';

/**
 * Longest line published, in bytes: Kafka's default `message.max.bytes` (1 MiB and a little)
 * less room for the record's key and headers.
 */
export const MAX_LINE_BYTES = 1_000_000;

/** An input that cannot be read; the message names it and says why. */
export class InputError extends Error {
  override name = 'InputError';
}

/** What reading has met so far, over every input. */
export interface ReadCounters {
  /** Bytes read from the files or standard input (compressed bytes for `.gz`). */
  bytes: number;
  lines: number;
  /** Blank lines, skipped. */
  blank: number;
  /** Lines longer than {@link MAX_LINE_BYTES}, skipped. */
  tooLong: number;
}

/** A fresh set of counters. */
export function readCounters(): ReadCounters {
  return { bytes: 0, lines: 0, blank: 0, tooLong: 0 };
}

/**
 * Checks that every file exists and is a readable regular file; answers their total size in
 * bytes (null when standard input is among them: its size is unknown).
 *
 * @throws {InputError} naming the first input that is missing or not a file.
 */
export async function inputSizes(inputs: readonly ReplayInput[]): Promise<number | null> {
  let total: number | null = 0;
  for (const input of inputs) {
    if (input.path === '-') {
      total = null;
      continue;
    }
    let info;
    try {
      info = await stat(input.path);
    } catch (error) {
      throw new InputError(`cannot read ${input.path}: ${reason(error)}`, { cause: error });
    }
    if (!info.isFile()) throw new InputError(`cannot read ${input.path}: not a regular file`);
    if (total !== null) total += info.size;
  }
  return total;
}

/**
 * The lines of `input`, as text without the line break; blank and over-long lines are counted
 * in `counters` and not yielded.
 *
 * @throws {InputError} when the file cannot be read or is not valid gzip.
 */
export async function* readLines(
  input: ReplayInput,
  counters: ReadCounters,
  stdin: Readable = process.stdin,
): AsyncGenerator<string> {
  const raw: Readable = input.path === '-' ? stdin : createReadStream(input.path);
  raw.on('data', (chunk: Buffer) => {
    counters.bytes += chunk.length;
  });
  const bytes: Readable = input.gzip ? raw.pipe(createGunzip()) : raw;
  if (input.gzip) raw.on('error', (error) => bytes.destroy(error));
  const name = input.path === '-' ? 'standard input' : input.path;
  try {
    yield* splitLines(bytes, counters);
  } catch (error) {
    throw new InputError(
      input.gzip && isZlibError(error)
        ? `${name} is not valid gzip: ${reason(error)}`
        : `cannot read ${name}: ${reason(error)}`,
      { cause: error },
    );
  } finally {
    if (input.path !== '-') raw.destroy();
  }
}

async function* splitLines(bytes: AsyncIterable<Buffer>, counters: ReadCounters) {
  let parts: Buffer[] = [];
  let held = 0;
  let tooLong = false;
  const line = function* (tail: Buffer) {
    counters.lines += 1;
    if (tooLong || held + tail.length > MAX_LINE_BYTES) {
      counters.tooLong += 1;
    } else {
      const text = Buffer.concat([...parts, tail]).toString('utf8').replace(/\r$/, '');
      if (text.trim() === '') counters.blank += 1;
      else yield text;
    }
    parts = [];
    held = 0;
    tooLong = false;
  };
  for await (const chunk of bytes) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      yield* line(chunk.subarray(start, end));
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (tooLong || held + rest.length > MAX_LINE_BYTES) {
      // Past the bound: nothing more of this line is kept.
      tooLong = true;
      parts = [];
      held = 0;
    } else if (rest.length > 0) {
      parts.push(Buffer.from(rest));
      held += rest.length;
    }
  }
  if (held > 0 || tooLong) yield* line(Buffer.alloc(0));
}

function isZlibError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('Z_');
}

function reason(error: unknown): string {
  if (error instanceof Error && 'code' in error) {
    if (error.code === 'ENOENT') return 'no such file';
    if (error.code === 'EACCES') return 'permission denied';
    if (error.code === 'EISDIR') return 'a directory, not a file';
  }
  return messageOf(error);
}
