/**
 * A failure to reach Redis, said so that the user knows which setting to fix: a refused login
 * names the credentials' variables, an untrusted certificate the CA's. Never a secret: Redis's
 * replies carry none, and ours name variables, not values.
 *
 * @module
 */
import type { RedisSecurity } from '../config.ts';
import { tlsFailureHint } from '../config/tls-failure.ts';

/**
 * `error` itself, or an error whose message says what to fix (and whose `cause` is `error`)
 * when it is a TLS or login failure.
 *
 * @example
 * ```ts
 * client.on('error', (error) => log(redisFailure(error, config.store.security)));
 * ```
 */
export function redisFailure(error: Error, security: RedisSecurity): Error {
  const hint = redisHint(error, security);
  return hint === null ? error : new Error(hint, { cause: error });
}

function redisHint(error: Error, security: RedisSecurity): string | null {
  const tls = tlsFailureHint(error, 'REDIS', security.tls);
  if (tls !== null) return `Redis: ${tls}`;
  const message = error.message;
  if (/^WRONGPASS/.test(message)) {
    return `Redis refused the login (${message}): check REDIS_USERNAME and REDIS_PASSWORD ` +
      '(or their _FILE forms, or the user and password of REDIS_URL)';
  }
  if (/^NOAUTH/.test(message)) {
    return `Redis wants a login (${message}): set REDIS_PASSWORD, and REDIS_USERNAME for an ` +
      'ACL user';
  }
  if (/^NOPERM/.test(message)) {
    return `the Redis ACL user may not do this (${message}): give REDIS_USERNAME's user every ` +
      'key (~*) and the command it was refused, or use another user';
  }
  return null;
}
