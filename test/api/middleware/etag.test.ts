import { describe, expect, test } from 'vitest';
import { etagOf, ifNoneMatchHits } from '../../../api/middleware/etag.ts';

describe('etag', () => {
  test('weak, stable, different for different bodies', () => {
    expect(etagOf('{"result":[]}')).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(etagOf('{"result":[]}')).toBe(etagOf('{"result":[]}'));
    expect(etagOf('{"result":[]}')).not.toBe(etagOf('{"result":[1]}'));
    expect(etagOf(new TextEncoder().encode('{"result":["é"]}'))).toBe(etagOf('{"result":["é"]}'));
  });

  test('If-None-Match: weak comparison, lists, the wildcard', () => {
    const tag = etagOf('x');
    expect(ifNoneMatchHits(null, tag)).toBe(false);
    expect(ifNoneMatchHits(tag, tag)).toBe(true);
    expect(ifNoneMatchHits(tag.slice(2), tag)).toBe(true);
    expect(ifNoneMatchHits(`"a", W/"b" , ${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits('*', tag)).toBe(true);
    expect(ifNoneMatchHits('W/"nope"', tag)).toBe(false);
  });
});
