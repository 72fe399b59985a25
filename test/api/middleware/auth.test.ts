import { describe, expect, test } from 'vitest';
import { createKeyVerifier } from '../../../api/middleware/auth.ts';
import { API_KEY_MAX_LENGTH } from '../../../src/config.ts';

describe('createKeyVerifier', () => {
  const verifier = createKeyVerifier(['first-key-0123456789', 'second-key-0123456789']);

  test('accepts every configured key and nothing else', () => {
    expect(verifier.verify('first-key-0123456789')).toBe(true);
    expect(verifier.verify('second-key-0123456789')).toBe(true);
    for (
      const wrong of [
        null,
        '',
        'first-key-012345678',
        'first-key-01234567890',
        'FIRST-KEY-0123456789',
      ]
    ) {
      expect(verifier.verify(wrong), String(wrong)).toBe(false);
    }
  });

  test('identifies a configured key by its position, never anything else', () => {
    expect(verifier.identify('first-key-0123456789')).toBe(0);
    expect(verifier.identify('second-key-0123456789')).toBe(1);
    expect(verifier.identify('second-key-012345678')).toBeNull();
    expect(verifier.identify(null)).toBeNull();
  });

  test('needs at least one key', () => {
    expect(() => createKeyVerifier([])).toThrow('at least one key');
  });

  test('a key of the longest length, and what only starts like it, or only looks like it', () => {
    const longest = 'k'.repeat(API_KEY_MAX_LENGTH - 1) + 'z';
    const sixteen = 'a'.repeat(16);
    const keys = createKeyVerifier([sixteen, longest]);
    expect(keys.identify(longest)).toBe(1);
    expect(keys.identify(sixteen)).toBe(0);
    for (
      const wrong of [
        `${longest}z`,
        `${longest}${'z'.repeat(5_000)}`,
        longest.slice(0, -1),
        // A character whose low byte is an `a` (U+0161), and one that is not ASCII at all.
        `${'a'.repeat(15)}\u0161`,
        `${'a'.repeat(15)}\u00e1`,
        `${'a'.repeat(16)}\u0000`,
        `${'a'.repeat(15)}\u{1F600}`,
      ]
    ) {
      expect(keys.identify(wrong), wrong.slice(0, 20)).toBeNull();
    }
  });

  test('refuses to compare keys no configuration allows', () => {
    for (const key of ['k'.repeat(API_KEY_MAX_LENGTH + 1), `${'k'.repeat(15)}é`, 'k k'.repeat(6)]) {
      expect(() => createKeyVerifier([key]), key.slice(0, 20)).toThrow(
        `printable ASCII, at most ${API_KEY_MAX_LENGTH} characters`,
      );
    }
  });
});
