/**
 * Parts as the stores give them back (their bytes) turned into text for assertions, each checked
 * to be bytes and whole UTF-8 first.
 *
 * @module
 */
import { expect } from 'vitest';
import type { SlottedPart } from '../../src/store/port.ts';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One part as text (null stays null). */
export function partText(part: Uint8Array | null): string | null {
  if (part === null) return null;
  expect(part).toBeInstanceOf(Uint8Array);
  return UTF8.decode(part);
}

/** Each part as text (null stays null). */
export function partTexts(parts: readonly (Uint8Array | null)[]): (string | null)[] {
  return parts.map(partText);
}

/** Each bucket's parts as text. */
export function bucketTexts(buckets: readonly (readonly Uint8Array[])[]): string[][] {
  return buckets.map((parts) => parts.map((part) => partText(part) ?? ''));
}

/** Each hash's parts as `slot=part` (`-` for a bucket's own part), the part as text, sorted. */
export function slotTexts(reads: readonly (readonly SlottedPart[])[]): string[][] {
  return reads.map((read) =>
    read.map(({ slot, part }) => `${slot ?? '-'}=${partText(part)}`).toSorted()
  );
}
