/**
 * The consumer role of a process that does not read one codec (`WITHHELD_CODEC`, e.g. snappy):
 * what a process has when a producer switches to a codec it has no library for. Run by the
 * undecodable-batch test with `--role consumers`.
 *
 * @module
 */
import process from 'node:process';
import {
  COMPRESSION_TYPES,
  type CompressionName,
  registerCodecs,
} from '../../src/kafka/codecs/register.ts';

const withheld = Object.keys(COMPRESSION_TYPES).find((name): name is CompressionName =>
  name === process.env.WITHHELD_CODEC
);
if (withheld === undefined) {
  throw new Error(
    `WITHHELD_CODEC must name a codec (${Object.keys(COMPRESSION_TYPES).join(', ')}): got ` +
      JSON.stringify(process.env.WITHHELD_CODEC),
  );
}
registerCodecs({ withheld: [withheld] });
await import('../../service/main.ts');
