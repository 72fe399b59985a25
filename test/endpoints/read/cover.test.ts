import { describe, expect, test } from 'vitest';
import { cover } from '../../../src/endpoints/read/cover.ts';
import { parseTimestamp } from '../../../src/time/timestamp.ts';

const t = (text: string) => {
  const us = parseTimestamp(text);
  if (us === null) throw new Error(`bad timestamp ${text}`);
  return us;
};

describe('cover', () => {
  test('a range starting mid-hour uses seconds, then minutes, then the hour', () => {
    const parts = cover(t('2026-11-21T10:58:30Z'), t('2026-11-21T12:00:00Z'), 'hour');
    const grains = parts.map((part) => part.grain);
    expect(grains.filter((g) => g === 'second')).toHaveLength(30);
    expect(grains.filter((g) => g === 'minute')).toHaveLength(1);
    expect(parts.at(-1)).toEqual({ grain: 'hour', bucketUs: t('2026-11-21T11:00:00Z') });
    expect(parts).toHaveLength(32);
  });

  test('an aligned range is one bucket', () => {
    expect(cover(t('2026-11-21T00:00:00Z'), t('2026-11-22T00:00:00Z'), 'day')).toEqual([
      { grain: 'day', bucketUs: t('2026-11-21T00:00:00Z') },
    ]);
  });

  test('the parts tile the range exactly, without gaps or overlaps', () => {
    const start = t('2026-11-14T10:15:00Z');
    const end = t('2026-11-15T00:00:00Z');
    const parts = cover(start, end, 'day');
    let cursor = start;
    const width = { second: 1e6, minute: 6e7, hour: 3.6e9, day: 8.64e10 } as const;
    for (const part of parts) {
      expect(part.bucketUs).toBe(cursor);
      cursor += width[part.grain];
    }
    expect(cursor).toBe(end);
    expect(parts.length).toBe(45 + 13);
  });
});
