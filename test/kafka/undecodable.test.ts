import { Buffer } from 'node:buffer';
import { expect, test } from 'vitest';
import { guarded, unread } from '../../src/kafka/codecs/undecodable.ts';
import { zstdCodec } from '../../src/kafka/codecs/zstd.ts';

/** Compressed bytes as kafkajs hands them over: right after the batch's record count. */
function inBatch(count: number, compressed: Buffer): Buffer {
  const batch = Buffer.alloc(4 + compressed.length);
  batch.writeInt32BE(count);
  compressed.copy(batch, 4);
  return batch.subarray(4);
}

/** The lengths of the records in `records`, each prefixed by its length (a zigzag varint). */
function recordLengths(records: Buffer): number[] {
  const lengths: number[] = [];
  for (let at = 0; at < records.length;) {
    let raw = 0;
    for (let shift = 0;; shift += 7) {
      const byte = records[at++] ?? 0;
      raw |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
    }
    const length = (raw >>> 1) ^ -(raw & 1);
    lengths.push(length);
    at += length;
  }
  return lengths;
}

test('a batch that does not decompress decodes to one marker per record it counts', async () => {
  const records = await guarded(zstdCodec, 'zstd').decompress(
    inBatch(3, Buffer.from('not zstd')),
  );
  expect(recordLengths(records)).toHaveLength(3);
  expect(records.toString('latin1')).toContain('the zstd batch does not decompress');
});

test('a batch whose records do not add up decodes to markers too', async () => {
  // One record of 2 bytes, where the batch counts 2.
  const compressed = await zstdCodec.compress({ buffer: Buffer.from([4, 0, 0]) });
  const records = await guarded(zstdCodec, 'zstd').decompress(inBatch(2, compressed));
  expect(recordLengths(records)).toHaveLength(2);
  expect(records.toString('latin1')).toContain('does not hold the 2 records it counts');
});

test('a batch that decodes is handed over as it is', async () => {
  // One record of 2 bytes.
  const compressed = await zstdCodec.compress({ buffer: Buffer.from([4, 0, 0]) });
  const records = await guarded(zstdCodec, 'zstd').decompress(inBatch(1, compressed));
  expect([...records]).toEqual([4, 0, 0]);
});

test('a codec not read decodes every batch to markers, and refuses to compress', async () => {
  const codec = unread('compression type 6 is not one Kafka defines');
  const records = await codec.decompress(inBatch(4, Buffer.from('anything')));
  expect(recordLengths(records)).toHaveLength(4);
  await expect(codec.compress({ buffer: Buffer.alloc(1) })).rejects.toThrow(/type 6/);
});
