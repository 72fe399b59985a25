/**
 * A secure Redis refusing a client: a wrong password, an untrusted certificate and no CA each
 * give one message naming the setting to fix, with no secret in it; a missing CA file stops the
 * start. The service process says it in one line without a stack and keeps retrying.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { describeWithServices, type SecureAddress } from '../support/services.ts';
import { firstOutage, firstStoreError } from './first-failure.ts';

const WRONG = 'wrong-password-never-shown';

function refusalsOf(address: () => SecureAddress): void {
  const settings = (overrides: Record<string, string>) => ({ ...address().settings, ...overrides });
  const password = () =>
    readFileSync(address().settings['REDIS_PASSWORD_FILE'] ?? '', 'utf8').trim();

  test.each([
    [
      'a wrong password',
      { REDIS_PASSWORD_FILE: '', REDIS_PASSWORD: WRONG },
      /^Redis refused the login \(WRONGPASS[^)]*\): check REDIS_USERNAME and REDIS_PASSWORD/,
    ],
    [
      'a certificate of another CA',
      { REDIS_TLS_CA_FILE: '@untrusted' },
      /^Redis: the server's TLS certificate is not signed by the CA in REDIS_TLS_CA_FILE/,
    ],
    [
      'no CA (the system CAs)',
      { REDIS_TLS_CA_FILE: '' },
      /^Redis: the server's TLS certificate is not signed by a CA this system trusts: set REDIS_TLS_CA_FILE/,
    ],
  ])('%s names the setting to fix, and no secret', async (_case, overrides, expected) => {
    const resolved = Object.fromEntries(
      Object.entries(overrides).map(([name, value]) => [
        name,
        value === '@untrusted' ? address().untrustedCaFile : value,
      ]),
    );
    const message = await firstStoreError(loadConfig(settings(resolved)).store);
    expect(message).toMatch(expected);
    expect(message).not.toContain(WRONG);
    expect(message).not.toContain(password());
  });

  test('a CA file that is not there stops the start, naming REDIS_TLS_CA_FILE', () => {
    expect(() => loadConfig(settings({ REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' }))).toThrow(
      new ConfigError(
        'REDIS_TLS_CA_FILE',
        '/nonexistent/ca.pem',
        'the path of a readable file holding PEM CA certificates (-----BEGIN CERTIFICATE-----) (ENOENT)',
      ),
    );
  });
}

describeWithServices(['secureRedis'], 'a TLS Redis with an ACL user refuses', ({ secureRedis }) => {
  refusalsOf(() => secureRedis);

  test('the service says so in one line without a stack or the password, and retries', async () => {
    const outage = await firstOutage('api', {
      ...secureRedis.settings,
      REDIS_PASSWORD_FILE: '',
      REDIS_PASSWORD: WRONG,
    });
    expect(outage.line.msg).toBe(`the store (${secureRedis.url}) is not reachable; retrying`);
    expect(outage.line.reason).toMatch(/check REDIS_USERNAME and REDIS_PASSWORD/);
    expect(outage.running).toBe(true);
    expect(outage.output).not.toMatch(/\n\s+at /);
    expect(outage.output).not.toContain(WRONG);
  }, 60_000);
});

describeWithServices(
  ['secureRedisCluster'],
  'a TLS Redis Cluster with an ACL user refuses',
  ({ secureRedisCluster }) => refusalsOf(() => secureRedisCluster),
);
