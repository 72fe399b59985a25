/**
 * Replay inputs read as they stream: plain and gzip files, standard input, lines over the
 * broker's bound skipped without being held, and inputs that cannot be read named with why.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ReplayInput } from '../../tools/replay/flags.ts';
import {
  InputError,
  inputSizes,
  MAX_LINE_BYTES,
  readCounters,
  readLines,
} from '../../tools/replay/input.ts';

const dir = mkdtempSync(join(tmpdir(), 'replay-input-'));

function file(name: string, content: string | Buffer): ReplayInput {
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, source: 'edge', gzip: name.endsWith('.gz') };
}

async function all(input: ReplayInput, stdin?: Readable) {
  const counters = readCounters();
  const lines: string[] = [];
  for await (const line of readLines(input, counters, stdin)) lines.push(line);
  return { lines, counters };
}

const TEXT = '{"a":1}\r\n\n  \n{"b":"é"}\n{"c":3}';

describe('reading replay inputs', () => {
  it('yields each line without its break; counts blank lines; takes a last line without one', async () => {
    const input = file('edge.ndjson', TEXT);
    expect(await all(input)).toEqual({
      lines: ['{"a":1}', '{"b":"é"}', '{"c":3}'],
      counters: { bytes: Buffer.byteLength(TEXT), lines: 5, blank: 2, tooLong: 0 },
    });
    expect(await inputSizes([input])).toBe(Buffer.byteLength(TEXT));
  });

  it('reads gzip as it streams, counting the compressed bytes', async () => {
    const compressed = gzipSync(TEXT);
    const input = file('edge.ndjson.gz', compressed);
    const { lines, counters } = await all(input);
    expect(lines).toEqual(['{"a":1}', '{"b":"é"}', '{"c":3}']);
    expect(counters.bytes).toBe(compressed.length);
  });

  it('reads standard input', async () => {
    const stdin = Readable.from([Buffer.from('{"a":1}\n{"b'), Buffer.from('":2}\n')]);
    const { lines } = await all({ path: '-', source: 'edge', gzip: false }, stdin);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(await inputSizes([{ path: '-', source: 'edge', gzip: false }])).toBeNull();
  });

  it('skips a line longer than the broker takes, and goes on with the next', async () => {
    const long = 'x'.repeat(MAX_LINE_BYTES + 1);
    const atBound = 'y'.repeat(MAX_LINE_BYTES);
    const input = file('edge-long.ndjson', `{"a":1}\n${long}\n${atBound}\n{"b":2}\n${long}`);
    const { lines, counters } = await all(input);
    expect(lines.map((line) => line.slice(0, 8))).toEqual(['{"a":1}', 'y'.repeat(8), '{"b":2}']);
    expect(counters).toMatchObject({ lines: 5, tooLong: 2, blank: 0 });
  });

  it('names an input it cannot read, and says why', async () => {
    const missing: ReplayInput = { path: join(dir, 'nope.ndjson'), source: 'edge', gzip: false };
    await expect(inputSizes([missing])).rejects.toThrow(
      new InputError(`cannot read ${missing.path}: no such file`),
    );
    const folder = join(dir, 'edge.d');
    mkdirSync(folder);
    await expect(inputSizes([{ path: folder, source: 'edge', gzip: false }])).rejects.toThrow(
      `cannot read ${folder}: not a regular file`,
    );
    const corrupt = file('edge-bad.ndjson.gz', Buffer.from('not gzip at all\n'));
    await expect(all(corrupt)).rejects.toThrow(`${corrupt.path} is not valid gzip`);
  });
});
