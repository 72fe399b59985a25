import { describe, expect, test } from 'vitest';
import { createKeyVerifier } from '../../../api/middleware/auth.ts';

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
});
