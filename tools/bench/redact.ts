/**
 * What PII redaction (`LF-ENDPOINT-REDACT-PII: true`) costs: `redactText` over 100 KB strings of
 * the kinds a hostile or a plain event can carry, and `redactAddresses` over objects whose keys
 * are addresses that all redact alike (each numbered). Median of 5 timed rounds after a warm-up
 * (`measure.ts`), one thread. Prints the figures; nothing asserts.
 *
 *   npm run bench:redact
 *
 * @module
 */
import { redactAddresses, redactText } from '../../src/text/redact-addresses.ts';
import { environment, measure } from './measure.ts';
import { withoutFlags } from '../tool-args.ts';

withoutFlags(import.meta.url);

const SIZE = 100_000;
const KINDS: readonly [string, string][] = [
  ['no colon or dot (skipped by the first test)', 'x'.repeat(SIZE)],
  ['letters and one colon', `${'x'.repeat(SIZE - 1)}:`],
  ['a log line repeated, one IPv4 each', 'GET | 200 | 203.0.113.7 | /rest/v1/t '.repeat(SIZE / 37)],
  ['dense digits and dots', '1.'.repeat(SIZE / 2)],
  ['dense digits and colons', '1:'.repeat(SIZE / 2)],
  ['dense zeros and dots (leading-zero octets)', '0.'.repeat(SIZE / 2)],
];

console.log(`redactText over ${SIZE.toLocaleString('en-US')}-character strings`);
console.log(environment());
for (const [kind, text] of KINDS) {
  const { median } = measure(() => redactText(text).length, 1, 5);
  console.log(`  ${kind.padEnd(46)} ${(1000 / median).toFixed(1)} ms per string`);
}
// Linear in the length whatever the text holds: the costliest kind at twice and four times the size.
for (const size of [SIZE * 2, SIZE * 4]) {
  const text = '1:'.repeat(size / 2);
  const { median } = measure(() => redactText(text).length, 1, 5);
  console.log(
    `  dense digits and colons, ${size.toLocaleString('en-US')} characters`.padEnd(48) +
      ` ${(1000 / median).toFixed(1)} ms per string`,
  );
}
// Keys: every key an address, all redacting to REDACTED, so each is numbered; linear in the keys.
for (const keys of [5_000, 10_000, 20_000]) {
  const value = JSON.parse(
    JSON.stringify(Object.fromEntries(
      Array.from({ length: keys }, (_, i) => [`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, i]),
    )),
  );
  const { median } = measure(() => Object.keys(redactAddresses(value)).length, 1, 5);
  console.log(
    `  an object of ${keys.toLocaleString('en-US')} address keys`.padEnd(48) +
      ` ${(1000 / median).toFixed(1)} ms per object`,
  );
}
