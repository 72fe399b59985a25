/**
 * The Kafka security settings: TLS, mutual TLS and SASL read and checked at start, secrets from
 * the environment or from files, and every refusal naming the variable without a secret in it.
 */
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { KEY_TEXT, pemFiles } from './pem-files.ts';

const BROKERS = { KAFKA_BROKERS: '127.0.0.1:19094' };

function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ ...BROKERS, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('Kafka security settings', () => {
  test('without any, the clients speak plaintext without login', () => {
    expect(loadConfig(BROKERS).kafkaSecurity).toEqual({ tls: null, sasl: null });
  });

  test('KAFKA_TLS=1 alone trusts the system CAs; a CA file turns TLS on by itself', () => {
    expect(loadConfig({ ...BROKERS, KAFKA_TLS: '1' }).kafkaSecurity.tls).toEqual({
      ca: null,
      cert: null,
      key: null,
    });
    const { ca } = pemFiles();
    const tls = loadConfig({ ...BROKERS, KAFKA_TLS_CA_FILE: ca }).kafkaSecurity.tls;
    expect(tls?.ca).toContain('-----BEGIN CERTIFICATE-----');
  });

  test('a client certificate comes with its key, read once, the key kept secret', () => {
    const { cert, key } = pemFiles();
    const tls = loadConfig({ ...BROKERS, KAFKA_TLS_CERT_FILE: cert, KAFKA_TLS_KEY_FILE: key })
      .kafkaSecurity.tls;
    expect(tls?.key?.reveal()).toContain(KEY_TEXT);
    expect(JSON.stringify(tls)).not.toContain(KEY_TEXT);
  });

  test.each(['plain', 'scram-sha-256', 'SCRAM-SHA-512'])(
    'SASL %s takes a user name and a password, inline or from files',
    (mechanism) => {
      const inline = loadConfig({
        ...BROKERS,
        KAFKA_SASL_MECHANISM: mechanism,
        KAFKA_SASL_USERNAME: 'ingest',
        KAFKA_SASL_PASSWORD: 'pa55-inline',
      }).kafkaSecurity.sasl;
      expect(inline).toMatchObject({ mechanism: mechanism.toLowerCase(), username: 'ingest' });
      expect(inline?.mechanism !== 'oauthbearer' && inline?.password.reveal()).toBe('pa55-inline');

      const { files } = pemFiles({ user: 'ingest\n', password: 'pa55-file\n' });
      const fromFiles = loadConfig({
        ...BROKERS,
        KAFKA_SASL_MECHANISM: mechanism,
        KAFKA_SASL_USERNAME_FILE: files['user'] ?? '',
        KAFKA_SASL_PASSWORD_FILE: files['password'] ?? '',
      }).kafkaSecurity.sasl;
      expect(fromFiles).toMatchObject({ username: 'ingest' });
      expect(fromFiles?.mechanism !== 'oauthbearer' && fromFiles?.password.reveal()).toBe(
        'pa55-file',
      );
      expect(JSON.stringify(fromFiles)).not.toContain('pa55');
    },
  );

  test('OAUTHBEARER takes a token file, checked readable at start', () => {
    const { files, missing } = pemFiles({ token: 'eyJ.token' });
    expect(
      loadConfig({
        ...BROKERS,
        KAFKA_SASL_MECHANISM: 'oauthbearer',
        KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: files['token'] ?? '',
      }).kafkaSecurity.sasl,
    ).toEqual({ mechanism: 'oauthbearer', tokenFile: files['token'] });
    expect(
      refusal({ KAFKA_SASL_MECHANISM: 'oauthbearer', KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: missing }),
    ).toMatch(/^KAFKA_SASL_OAUTHBEARER_TOKEN_FILE=".*missing.pem" is not allowed: .*ENOENT/);
  });

  test.each([
    [{ KAFKA_TLS: 'maybe' }, 'KAFKA_TLS="maybe" is not allowed: 1, true, yes, on'],
    [{ KAFKA_SASL_MECHANISM: 'gssapi' }, 'KAFKA_SASL_MECHANISM="gssapi" is not allowed: plain,'],
    [
      { KAFKA_SASL_USERNAME: 'ingest' },
      'KAFKA_SASL_MECHANISM="" is not allowed: one of plain, scram-sha-256, scram-sha-512, ' +
      'oauthbearer when KAFKA_SASL_USERNAME is set',
    ],
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'ingest' },
      'KAFKA_SASL_PASSWORD="" is not allowed: the SASL password (or KAFKA_SASL_PASSWORD_FILE)',
    ],
    [
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'pa55-never-shown' },
      'KAFKA_SASL_USERNAME="" is not allowed',
    ],
    [{ KAFKA_SASL_MECHANISM: 'oauthbearer' }, 'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE="" is not'],
  ])('%j is refused naming the variable', (env, message) => {
    expect(refusal(env)).toContain(message);
  });

  test('a missing CA file, a file of the wrong kind and half a client pair are refused', () => {
    const { ca, cert, key, notPem, missing } = pemFiles();
    expect(refusal({ KAFKA_TLS_CA_FILE: missing })).toMatch(
      /^KAFKA_TLS_CA_FILE=".*missing.pem" is not allowed: the path of a readable file holding PEM CA certificates .*\(ENOENT\)$/,
    );
    expect(refusal({ KAFKA_TLS_CA_FILE: notPem })).toMatch(
      /^KAFKA_TLS_CA_FILE=".*notes.txt" is not allowed: a file holding PEM CA certificates/,
    );
    expect(refusal({ KAFKA_TLS_CERT_FILE: cert })).toContain(
      'KAFKA_TLS_KEY_FILE="" is not allowed: set with KAFKA_TLS_CERT_FILE',
    );
    expect(refusal({ KAFKA_TLS_CERT_FILE: cert, KAFKA_TLS_KEY_FILE: ca })).toMatch(
      /^KAFKA_TLS_KEY_FILE=".*ca.pem" is not allowed: a file holding the PEM private key/,
    );
    expect(refusal({ KAFKA_TLS: '0', KAFKA_TLS_CA_FILE: ca })).toBe(
      'KAFKA_TLS="0" is not allowed: on when KAFKA_TLS_CA_FILE is set',
    );
    expect(refusal({ KAFKA_TLS_CERT_FILE: notPem, KAFKA_TLS_KEY_FILE: key })).not.toContain(
      KEY_TEXT,
    );
  });

  test('a password given twice (inline and as a file) is refused without showing it', () => {
    const { files } = pemFiles({ password: 'pa55-file' });
    const message = refusal({
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'ingest',
      KAFKA_SASL_PASSWORD: 'pa55-inline',
      KAFKA_SASL_PASSWORD_FILE: files['password'] ?? '',
    });
    expect(message).toMatch(/^KAFKA_SASL_PASSWORD_FILE=".*password" is not allowed: unset when/);
    expect(message).not.toContain('pa55');
  });

  test('the configuration printed, logged or serialized shows no secret', async () => {
    const { key, cert } = pemFiles();
    const config = loadConfig({
      ...BROKERS,
      KAFKA_TLS_CERT_FILE: cert,
      KAFKA_TLS_KEY_FILE: key,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'ingest',
      KAFKA_SASL_PASSWORD: 'pa55-never-shown',
    });
    const { inspect } = await import('node:util');
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 10 }), String(config)]) {
      expect(shown).not.toContain('pa55-never-shown');
      expect(shown).not.toContain(KEY_TEXT);
    }
  });
});
