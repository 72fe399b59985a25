/**
 * SHA-1 of a Lua script, the name Redis's EVALSHA knows it by.
 *
 * @module
 */
import { createHash } from 'node:crypto';

/** The hex SHA-1 of `script`. */
export function scriptSha1(script: string): string {
  return createHash('sha1').update(script).digest('hex');
}
