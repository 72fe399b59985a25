/**
 * Entity tags of result bodies and the `If-None-Match` check (RFC 9110 section 13.1.2).
 *
 * Tags are weak (`W/"…"`): two answers with the same tag are the same rows, but an intermediary
 * that re-encodes or compresses the body keeps the tag valid. `If-None-Match` uses the weak
 * comparison, as the RFC prescribes for it.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { RowsJson } from '../../src/endpoints/read/rows-json.ts';

/**
 * The weak entity tag of a body (text is hashed as UTF-8, so text and its bytes get one tag).
 *
 * @example
 * ```ts
 * etagOf('{"result":[]}'); // 'W/"…27 characters…"'
 * ```
 */
export function etagOf(body: string | Uint8Array): string {
  return `W/"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * The form of the rows an answer's digest stands for. Two builds that write the same values or
 * entries as different bytes (a row written otherwise, another frame) must not give one tag, or a
 * client revalidating against a replica of the other build keeps bytes it no longer gets: raise it
 * with any change to how an endpoint that gives a digest writes its rows.
 */
export const DIGEST_ROWS_FORM = 'rows-v1';

/**
 * The weak entity tag of an answer: of what its rows were written from where its endpoint gives
 * it (with how many rows were sent, and {@link DIGEST_ROWS_FORM}), else of its body. The two kinds
 * never meet: a tag of a digest is one character longer (`v` and the hash).
 */
export function etagOfAnswer(answer: RowsJson): string {
  const { digest } = answer;
  if (digest === undefined) return etagOf(answer.json);
  const hash = createHash('sha1').update(DIGEST_ROWS_FORM).update(digest)
    .update(`${answer.rows}`).digest('base64url');
  return `W/"v${hash}"`;
}

function opaque(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
}

/**
 * Whether an `If-None-Match` header value matches `etag` (weak comparison; `*` matches any).
 *
 * @example
 * ```ts
 * ifNoneMatchHits('W/"abc", "def"', 'W/"def"'); // true
 * ifNoneMatchHits(null, 'W/"def"'); // false
 * ```
 */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const wanted = opaque(etag);
  return header.split(',').some((tag) => opaque(tag) === wanted);
}
