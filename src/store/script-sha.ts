/**
 * SHA-1 of a Lua script, the name Redis's EVALSHA knows it by (computed once per script).
 *
 * @module
 */
import { createHash } from 'node:crypto';

const known = new Map<string, string>();

/** The hex SHA-1 of `script`. */
export function scriptSha1(script: string): string {
  let sha = known.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    known.set(script, sha);
  }
  return sha;
}
