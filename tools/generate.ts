/**
 * Writes a synthetic event stream as NDJSON: `DIR/edge.ndjson` and `DIR/function-edge.ndjson`.
 *
 *   npm run generate -- --seed 1 --events 1000000 --out data --span 1h --invalid 0.01
 *
 * Prints a summary (lines per source, invalid lines per kind, rate) to stderr.
 *
 * @module
 */

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import type { Source } from '../src/events/types.ts';
import { generateEvents } from '../src/synthetic/generator.ts';
import { FlagError, type GenerateCommand, parseGenerateFlags, USAGE } from './generate-flags.ts';

const encoder = new TextEncoder();

/** Size of each file's write buffer, in bytes. */
const CHUNK = 1 << 20;

function main(): number {
  let command: GenerateCommand | null;
  try {
    command = parseGenerateFlags(process.argv.slice(2), Date.now() * 1000);
  } catch (error) {
    if (error instanceof FlagError) {
      process.stderr.write(`generate: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (command === null) {
    process.stdout.write(USAGE);
    return 0;
  }

  mkdirSync(command.out, { recursive: true });
  const files: Record<Source, OutputFile> = {
    edge: openOutput(join(command.out, 'edge.ndjson')),
    'function-edge': openOutput(join(command.out, 'function-edge.ndjson')),
  };
  const invalid = new Map<string, number>();
  const started = performance.now();
  try {
    for (const { source, line, invalid: kind } of generateEvents(command.options)) {
      append(files[source], line);
      if (kind !== null) invalid.set(kind, (invalid.get(kind) ?? 0) + 1);
    }
    for (const file of Object.values(files)) flush(file);
  } finally {
    for (const file of Object.values(files)) closeSync(file.fd);
  }
  const seconds = (performance.now() - started) / 1000;
  const total = command.options.events;
  process.stderr.write(
    `wrote ${files.edge.lines} edge and ${
      files['function-edge'].lines
    } function-edge lines to ${command.out} ` +
      `in ${seconds.toFixed(2)} s (${Math.round(total / seconds)} lines/s); invalid: ${
        invalid.size === 0 ? 'none' : [...invalid].map(([kind, n]) => `${kind} ${n}`).join(', ')
      }\n`,
  );
  return 0;
}

/** One output file and its write buffer. */
interface OutputFile {
  readonly fd: number;
  readonly buffer: Uint8Array;
  /** Bytes of `buffer` in use. */
  used: number;
  lines: number;
}

function openOutput(path: string): OutputFile {
  return { fd: openSync(path, 'w'), buffer: new Uint8Array(CHUNK), used: 0, lines: 0 };
}

/** Encodes the line straight into the file's buffer: no joined string, no extra copy. */
function append(file: OutputFile, line: string): void {
  // A UTF-16 code unit takes at most 3 UTF-8 bytes; the newline one more.
  const room = line.length * 3 + 1;
  if (file.used + room > file.buffer.length) flush(file);
  if (room > file.buffer.length) {
    writeAll(file.fd, encoder.encode(`${line}\n`));
  } else {
    file.used += encoder.encodeInto(line, file.buffer.subarray(file.used)).written;
    file.buffer[file.used++] = 10; // '\n'
  }
  file.lines++;
}

function flush(file: OutputFile): void {
  writeAll(file.fd, file.buffer.subarray(0, file.used));
  file.used = 0;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  // writeSync may write less than asked: loop until everything is out.
  for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
}

process.exitCode = main();
