import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  DIGEST_ROWS_FORM,
  etagOf,
  etagOfAnswer,
  ifNoneMatchHits,
} from '../../../api/middleware/etag.ts';

describe('etag', () => {
  test('weak, stable, different for different bodies', () => {
    expect(etagOf('{"result":[]}')).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(etagOf('{"result":[]}')).toBe(etagOf('{"result":[]}'));
    expect(etagOf('{"result":[]}')).not.toBe(etagOf('{"result":[1]}'));
    expect(etagOf(new TextEncoder().encode('{"result":["é"]}'))).toBe(etagOf('{"result":["é"]}'));
  });

  test("an answer's tag: of its values and row count where it gives them, else of its body", () => {
    const json = new TextEncoder().encode('{"result":[]}');
    const digest = Float64Array.of(1, 2, Number.NaN);
    const bytes = new Uint8Array(digest.buffer);
    const tag = etagOfAnswer({ json, rows: 3, truncated: false, digest: bytes });
    expect(tag).toMatch(/^W\/"v[A-Za-z0-9_-]{27}"$/);
    expect(etagOfAnswer({ json, rows: 3, truncated: false, digest: bytes.slice() })).toBe(tag);
    expect(etagOfAnswer({ json, rows: 2, truncated: true, digest: bytes })).not.toBe(tag);
    expect(etagOfAnswer({ json, rows: 3, truncated: false, digest: bytes.subarray(8) })).not.toBe(
      tag,
    );
    expect(etagOfAnswer({ json, rows: 0, truncated: false })).toBe(etagOf(json));
  });

  test("a digest's tag names the form its rows are written in: another build's differs", () => {
    const digest = new TextEncoder().encode('12:head\u0000200,');
    const tag = (form: string) =>
      `W/"v${createHash('sha1').update(form).update(digest).update('1').digest('base64url')}"`;
    const answer = { json: new Uint8Array(0), rows: 1, truncated: false, digest };
    expect(etagOfAnswer(answer)).toBe(tag(DIGEST_ROWS_FORM));
    expect(etagOfAnswer(answer)).not.toBe(tag(''));
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
