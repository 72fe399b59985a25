/**
 * The Redis security settings: TLS (a rediss:// URL, or REDIS_TLS for a cluster's nodes), CA and
 * client certificate files, and an ACL user, read and checked at start; the REST token from a
 * file. No refusal shows a password, the URL's included.
 */
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, type StoreConfig } from '../../src/config.ts';
import { KEY_TEXT, pemFiles } from './pem-files.ts';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

function security(store: StoreConfig) {
  if (store.kind !== 'redis' && store.kind !== 'redis-cluster') throw new Error(store.kind);
  return store.security;
}

describe('Redis security settings', () => {
  test('a redis:// URL is plaintext as the default user; rediss:// is TLS on the system CAs', () => {
    expect(security(loadConfig({ REDIS_URL: 'redis://h:6379' }).store)).toEqual({
      tls: null,
      username: null,
      password: null,
    });
    expect(security(loadConfig({ REDIS_URL: 'rediss://h:6380' }).store).tls).toEqual({
      ca: null,
      cert: null,
      key: null,
    });
  });

  test('one Redis and every cluster node take the same CA, client pair and ACL user', () => {
    const { ca, cert, key, files } = pemFiles({ password: 'acl-pa55\n' });
    const common = {
      REDIS_TLS_CA_FILE: ca,
      REDIS_TLS_CERT_FILE: cert,
      REDIS_TLS_KEY_FILE: key,
      REDIS_USERNAME: 'rollups',
      REDIS_PASSWORD_FILE: files['password'] ?? '',
    };
    for (
      const env of [
        { ...common, REDIS_URL: 'rediss://h:6380' },
        { ...common, REDIS_CLUSTER_NODES: 'h:7101,h:7102' },
      ]
    ) {
      const found = security(loadConfig(env).store);
      expect(found.username).toBe('rollups');
      expect(found.password?.reveal()).toBe('acl-pa55');
      expect(found.tls?.ca).toContain('BEGIN CERTIFICATE');
      expect(found.tls?.key?.reveal()).toContain(KEY_TEXT);
      expect(JSON.stringify(loadConfig(env))).not.toMatch(/acl-pa55|key-material/);
    }
  });

  test('a cluster turns TLS on with REDIS_TLS or with a TLS file', () => {
    const nodes = { REDIS_CLUSTER_NODES: 'h:7101' };
    expect(security(loadConfig({ ...nodes, REDIS_TLS: 'on' }).store).tls).not.toBeNull();
    expect(security(loadConfig({ ...nodes, REDIS_TLS_CA_FILE: pemFiles().ca }).store).tls)
      .not.toBeNull();
    expect(security(loadConfig(nodes).store).tls).toBeNull();
  });

  test('the REST token may come from a file', () => {
    const { files } = pemFiles({ token: 'rest-token\n' });
    const store = loadConfig({
      UPSTASH_REDIS_REST_URL: 'https://x.upstash.io',
      UPSTASH_REDIS_REST_TOKEN_FILE: files['token'] ?? '',
    }).store;
    expect(store.kind === 'upstash' && store.token.reveal()).toBe('rest-token');
    expect(JSON.stringify(store)).not.toContain('rest-token');
  });

  test.each([
    [
      { REDIS_URL: 'redis://h:6379', REDIS_TLS: '1' },
      'REDIS_TLS="1" is not allowed: unset or off: one Redis takes TLS from its URL',
    ],
    [
      { REDIS_URL: 'redis://h:6379', REDIS_TLS_CA_FILE: pemFiles().ca },
      'REDIS_URL="redis://h:6379" is not allowed: a rediss:// URL when REDIS_TLS_CA_FILE is set',
    ],
    [
      { REDIS_CLUSTER_NODES: 'h:7101', REDIS_TLS: 'off', REDIS_TLS_CA_FILE: pemFiles().ca },
      'REDIS_TLS="off" is not allowed: on when REDIS_TLS_CA_FILE is set',
    ],
    [
      { REDIS_CLUSTER_NODES: 'h:7101', REDIS_USERNAME: 'rollups' },
      'REDIS_PASSWORD="" is not allowed: the password of REDIS_USERNAME',
    ],
    [
      { REDIS_CLUSTER_NODES: 'h:7101', REDIS_TLS_CA_FILE: pemFiles().missing },
      'REDIS_TLS_CA_FILE="',
    ],
  ])('%j is refused naming the variable', (env, message) => {
    expect(refusal(env)).toContain(message);
  });

  test("a URL's password is never part of a refusal", () => {
    const message = refusal({
      REDIS_URL: 'rediss://rollups:url-pa55@h:6380',
      REDIS_PASSWORD: 'other-pa55',
    });
    expect(message).toBe(
      'REDIS_URL="rediss://rollups:***@h:6380" is not allowed: a URL without user or password ' +
        'when REDIS_USERNAME or REDIS_PASSWORD is set: give them once',
    );
    expect(refusal({ REDIS_URL: 'redis://:url-pa55@h 1' })).toBe(
      'REDIS_URL="redis://***@h 1" is not allowed: a redis:// or rediss:// URL',
    );
  });
});
