/**
 * How the store reaches a Redis, or every node of a Redis Cluster, that wants TLS and a login,
 * as managed Redis services do:
 *
 * | variable                            | meaning                                                   |
 * | ----------------------------------- | --------------------------------------------------------- |
 * | `REDIS_TLS`                         | TLS to the cluster's nodes (one Redis: a `rediss://` URL)  |
 * | `REDIS_TLS_CA_FILE`                 | PEM CAs to trust instead of the system's                  |
 * | `REDIS_TLS_CERT_FILE`, `_KEY_FILE`  | client certificate and key (mutual TLS)                   |
 * | `REDIS_USERNAME[_FILE]`             | ACL user (default: Redis's `default` user)                |
 * | `REDIS_PASSWORD[_FILE]`             | its password                                              |
 *
 * @module
 */
import { ConfigError, type Env, flag, secret, text } from './read.ts';
import type { Secret } from './secret.ts';
import { tlsFilesSet, type TlsSettings, tlsSettings } from './tls.ts';

/** TLS and login of the store's Redis connections. */
export interface RedisSecurity {
  /** TLS settings, or null: plaintext. */
  readonly tls: TlsSettings | null;
  /** ACL user, or null: the `default` user (or the URL's). */
  readonly username: string | null;
  readonly password: Secret | null;
}

/** A Redis URL as it may be shown: its password, if any, left out. */
export function shownUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/)([^@/]*)@/, (_match, scheme: string, userinfo: string) => {
    const user = userinfo.split(':')[0] ?? '';
    return `${scheme}${user === '' ? '' : `${user}:`}***@`;
  });
}

/**
 * Reads the Redis security variables for one Redis at `url` or (`url` null) a cluster; throws
 * {@link ConfigError}.
 */
export function redisSecurity(env: Env, url: string | null): RedisSecurity {
  const fileSet = tlsFilesSet(env, 'REDIS');
  const tlsOn = url === null ? flag(env, 'REDIS_TLS', fileSet !== null) : clientTls(env, url);
  if (!tlsOn && fileSet !== null) {
    if (url !== null) {
      throw new ConfigError('REDIS_URL', shownUrl(url), `a rediss:// URL when ${fileSet} is set`);
    }
    throw new ConfigError('REDIS_TLS', text(env, 'REDIS_TLS') ?? '', `on when ${fileSet} is set`);
  }
  const username = secret(env, 'REDIS_USERNAME', 'the Redis ACL user name');
  const password = secret(env, 'REDIS_PASSWORD', 'the Redis password');
  if (url !== null && /^rediss?:\/\/[^@/]*@/.test(url) && (username ?? password) !== null) {
    throw new ConfigError(
      'REDIS_URL',
      shownUrl(url),
      'a URL without user or password when REDIS_USERNAME or REDIS_PASSWORD is set: give them once',
    );
  }
  if (username !== null && password === null) {
    throw new ConfigError(
      'REDIS_PASSWORD',
      '',
      'the password of REDIS_USERNAME (or REDIS_PASSWORD_FILE)',
    );
  }
  return {
    tls: tlsOn ? tlsSettings(env, 'REDIS') : null,
    username: username === null ? null : username.reveal(),
    password,
  };
}

/** One Redis: TLS is what its URL says; `REDIS_TLS` may only agree. */
function clientTls(env: Env, url: string): boolean {
  const tls = url.startsWith('rediss://');
  if (flag(env, 'REDIS_TLS', tls) !== tls) {
    throw new ConfigError(
      'REDIS_TLS',
      text(env, 'REDIS_TLS') ?? '',
      `unset or ${tls ? 'on' : 'off'}: one Redis takes TLS from its URL (rediss:// for TLS)`,
    );
  }
  return tls;
}
