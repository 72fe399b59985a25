/**
 * A failure to connect names the setting to fix: errors shaped as Node's TLS checks, kafkajs's
 * SASL authenticator and Redis's replies raise them (the secure-services suites meet the real
 * ones). The original error stays the cause.
 */
import { describe, expect, test } from 'vitest';
import type { KafkaSecurity, RedisSecurity } from '../../src/config.ts';
import { Secret } from '../../src/config/secret.ts';
import { kafkaFailure } from '../../src/kafka/failure.ts';
import { redisFailure } from '../../src/store/login-failure.ts';

const TLS = { ca: null, cert: null, key: null };
const SCRAM: KafkaSecurity = {
  tls: TLS,
  sasl: { mechanism: 'scram-sha-512', username: 'u', password: new Secret('never-shown') },
};
const ACL: RedisSecurity = { tls: TLS, username: 'rollups', password: new Secret('never-shown') };

function tlsError(code: string): Error {
  return Object.assign(new Error('self-signed certificate in certificate chain'), { code });
}

/** As kafkajs wraps a socket error (network/connection.js). */
function kafkaConnectionError(cause: Error): Error {
  return Object.assign(new Error(`Connection error: ${cause.message}`), {
    name: 'KafkaJSConnectionError',
    code: (cause as { code?: string }).code,
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

describe('connect hints', () => {
  test('an untrusted broker certificate names KAFKA_TLS_CA_FILE, with or without a CA set', () => {
    const error = kafkaConnectionError(tlsError('SELF_SIGNED_CERT_IN_CHAIN'));
    const failure = kafkaFailure(error, SCRAM);
    expect(messageOf(failure)).toBe(
      "Kafka: the server's TLS certificate is not signed by a CA this system trusts: set " +
        'KAFKA_TLS_CA_FILE to the PEM file of the CA that signed it',
    );
    expect((failure as Error).cause).toBe(error);
    const withCa = { ...SCRAM, tls: { ...TLS, ca: 'pem' } };
    expect(messageOf(kafkaFailure(error, withCa))).toContain(
      'not signed by the CA in KAFKA_TLS_CA_FILE',
    );
  });

  test('a refused SASL login names the credentials, never their values', () => {
    const error = Object.assign(
      new Error('SASL SCRAM SHA512 authentication failed: Authentication failed'),
      { name: 'KafkaJSSASLAuthenticationError' },
    );
    const message = messageOf(kafkaFailure(error, SCRAM));
    expect(message).toMatch(
      /^Kafka refused the SASL login \(SASL SCRAM SHA512 authentication failed/,
    );
    expect(message).toContain('check KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD');
    expect(message).not.toContain('never-shown');
  });

  test('other errors pass unchanged', () => {
    const error = new Error('Connection timeout');
    expect(kafkaFailure(error, SCRAM)).toBe(error);
    expect(redisFailure(error, ACL)).toBe(error);
  });

  test.each([
    [
      'WRONGPASS invalid username-password pair or user is disabled.',
      'check REDIS_USERNAME and REDIS_PASSWORD',
    ],
    ['NOAUTH Authentication required.', 'set REDIS_PASSWORD, and REDIS_USERNAME for an ACL user'],
    [
      "NOPERM User rollups has no permissions to run the 'eval' command",
      "give REDIS_USERNAME's user",
    ],
  ])('Redis %s names the setting', (reply, hint) => {
    const message = messageOf(redisFailure(new Error(reply), ACL));
    expect(message).toContain(hint);
    expect(message).not.toContain('never-shown');
  });

  test('an untrusted Redis certificate and a refused client certificate name their files', () => {
    expect(messageOf(redisFailure(tlsError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), ACL))).toContain(
      'set REDIS_TLS_CA_FILE',
    );
    expect(
      messageOf(redisFailure(tlsError('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), ACL)),
    ).toContain('set REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE');
  });
});
