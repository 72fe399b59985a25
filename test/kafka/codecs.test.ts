import { Buffer } from 'node:buffer';
import { compress as snappyBlock } from 'snappyjs';
import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/kafka/codecs/codec.ts';
import { lz4Codec } from '../../src/kafka/codecs/lz4.ts';
import { snappyCodec } from '../../src/kafka/codecs/snappy.ts';
import { zstdCodec } from '../../src/kafka/codecs/zstd.ts';

/** Records as a batch holds them: repetitive JSON, and more than one snappy or LZ4 block. */
const RECORDS = Buffer.from(
  Array.from({ length: 3_000 }, (_, i) => `{"id":"${i}","event_message":"GET | 200"}`).join(''),
);

const CODECS: readonly [string, Codec][] = [
  ['snappy', snappyCodec],
  ['lz4', lz4Codec],
  ['zstd', zstdCodec],
];

describe.each(CODECS)('the %s codec', (_, codec) => {
  test('reads what it writes, smaller', async () => {
    const compressed = await codec.compress({ buffer: RECORDS });
    expect(compressed.length).toBeLessThan(RECORDS.length / 2);
    expect(Buffer.compare(await codec.decompress(compressed), RECORDS)).toBe(0);
  });

  test('reads an empty batch', async () => {
    const compressed = await codec.compress({ buffer: Buffer.alloc(0) });
    expect((await codec.decompress(compressed)).length).toBe(0);
  });

  test('refuses bytes that are not its format', async () => {
    await expect(
      (async () => await codec.decompress(Buffer.from('not compressed at all, not at all')))(),
    ).rejects.toThrow();
  });
});

test('snappy reads a raw block, as librdkafka writes it', async () => {
  const raw = Buffer.from(snappyBlock(RECORDS));
  expect(Buffer.compare(await snappyCodec.decompress(raw), RECORDS)).toBe(0);
});

test('snappy refuses a xerial block that claims more bytes than there are', async () => {
  const framed = await snappyCodec.compress({ buffer: RECORDS });
  await expect(
    (async () => await snappyCodec.decompress(framed.subarray(0, framed.length - 10)))(),
  ).rejects.toThrow(/claims \d+ bytes/);
});

test('lz4 writes independent blocks, which the broker requires', async () => {
  const framed = await lz4Codec.compress({ buffer: RECORDS });
  expect(framed.readUInt32LE(0)).toBe(0x184d2204);
  // Version 1, block independence.
  expect(framed[4]).toBe(0x60);
});
