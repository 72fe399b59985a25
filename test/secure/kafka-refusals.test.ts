/**
 * The broker that takes only SASL_SSL: plaintext refused, the three password mechanisms taken,
 * and a wrong password, another CA's certificate and no CA each said in one message naming the
 * setting to fix, with no secret; a missing CA file stops the start. The consumers' process
 * says a refused login in one line without a stack, and keeps retrying.
 *
 * The certificate cases connect without kafkajs's retries: with them, the same message comes
 * after about a minute of attempts.
 */
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { kafkaClient } from '../../src/kafka/client.ts';
import { kafkaFailure } from '../../src/kafka/failure.ts';
import { kafkaSecurityOptions } from '../../src/kafka/security.ts';
import { createLogger } from '../../src/logger.ts';
import { probeKafka } from '../../tools/services/probes.ts';
import { describeWithServices } from '../support/services.ts';
import { firstOutage } from './first-failure.ts';

const WRONG = 'wrong-password-never-shown';

/** The message a failed metadata request of a client on `settings` ends in, hint included. */
async function refusal(settings: Record<string, string>, retries?: number): Promise<string> {
  const config = loadConfig(settings);
  const brokers = config.kafkaBrokers ?? [];
  const kafka = retries === undefined
    ? kafkaClient(config, createLogger('silent', 'test'), brokers)
    : new Kafka({
      brokers: [...brokers],
      ...kafkaSecurityOptions(config.kafkaSecurity),
      retry: { retries },
      logLevel: logLevel.NOTHING,
    });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } catch (error) {
    const failure = kafkaFailure(error, config.kafkaSecurity);
    return failure instanceof Error ? failure.message : String(failure);
  } finally {
    await admin.disconnect();
  }
  throw new Error('the broker took the client');
}

describeWithServices(['secureKafka'], 'a SASL_SSL broker', ({ secureKafka }) => {
  const password = () =>
    readFileSync(secureKafka.settings['KAFKA_SASL_PASSWORD_FILE'] ?? '', 'utf8').trim();

  test('refuses a plaintext client', async () => {
    await expect(probeKafka(secureKafka.brokers)).rejects.toThrow();
  });

  test.each(['scram-sha-512', 'scram-sha-256', 'plain'])(
    'takes SASL %s over TLS with the local CA',
    async (mechanism) => {
      const config = loadConfig({ ...secureKafka.settings, KAFKA_SASL_MECHANISM: mechanism });
      const admin = kafkaClient(config, createLogger('silent', 'test'), secureKafka.brokers)
        .admin();
      await admin.connect();
      try {
        expect(Array.isArray(await admin.listTopics())).toBe(true);
      } finally {
        await admin.disconnect();
      }
    },
  );

  test('takes a client certificate (mutual TLS) from KAFKA_TLS_CERT_FILE and _KEY_FILE', async () => {
    const config = loadConfig({
      ...secureKafka.settings,
      KAFKA_TLS_CERT_FILE: secureKafka.clientCertFile,
      KAFKA_TLS_KEY_FILE: secureKafka.clientKeyFile,
    });
    const admin = kafkaClient(config, createLogger('silent', 'test'), secureKafka.brokers).admin();
    await admin.connect();
    try {
      expect(Array.isArray(await admin.listTopics())).toBe(true);
    } finally {
      await admin.disconnect();
    }
  });

  test('a wrong password names KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD, not the password', async () => {
    const message = await refusal({
      ...secureKafka.settings,
      KAFKA_SASL_PASSWORD_FILE: '',
      KAFKA_SASL_PASSWORD: WRONG,
    });
    expect(message).toMatch(
      /^Kafka refused the SASL login \(SASL SCRAM SHA512 authentication failed[^)]*\): check KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD/,
    );
    expect(message).not.toContain(WRONG);
    expect(message).not.toContain(password());
  });

  test.each([
    [
      'a certificate of another CA',
      { KAFKA_TLS_CA_FILE: secureKafka.untrustedCaFile },
      "Kafka: the server's TLS certificate is not signed by the CA in KAFKA_TLS_CA_FILE: set it to the CA that signed the certificate",
    ],
    [
      'no CA (the system CAs)',
      { KAFKA_TLS_CA_FILE: '', KAFKA_TLS: '1' },
      "Kafka: the server's TLS certificate is not signed by a CA this system trusts: set KAFKA_TLS_CA_FILE to the PEM file of the CA that signed it",
    ],
  ])('%s names KAFKA_TLS_CA_FILE', async (_case, overrides, expected) => {
    expect(await refusal({ ...secureKafka.settings, ...overrides }, 0)).toBe(expected);
  });

  test('a client certificate it does not trust names KAFKA_TLS_CERT_FILE and _KEY_FILE', async () => {
    const settings = {
      ...secureKafka.settings,
      KAFKA_TLS_CERT_FILE: secureKafka.untrustedCaFile,
      KAFKA_TLS_KEY_FILE: secureKafka.untrustedKeyFile,
    };
    expect(await refusal(settings, 0)).toBe(
      "Kafka: the server refused this client's TLS certificate: set KAFKA_TLS_CERT_FILE and " +
        'KAFKA_TLS_KEY_FILE to a certificate it trusts',
    );
  });

  test('a CA file that is not there stops the start, naming KAFKA_TLS_CA_FILE', () => {
    expect(() => loadConfig({ ...secureKafka.settings, KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' }))
      .toThrow(ConfigError);
    expect(() => loadConfig({ ...secureKafka.settings, KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' }))
      .toThrow(/^KAFKA_TLS_CA_FILE="\/nonexistent\/ca.pem" is not allowed: .*\(ENOENT\)$/);
  });

  test(
    'the consumers say a refused login in one line, no stack or password, and retry',
    async () => {
      const outage = await firstOutage('consumers', {
        ...secureKafka.settings,
        KAFKA_SASL_PASSWORD_FILE: '',
        KAFKA_SASL_PASSWORD: WRONG,
        STORE: 'memory',
        KAFKA_TOPIC_PREFIX: 'secure-refusal.',
      });
      expect(outage.line.msg).toBe(
        `Kafka (${secureKafka.brokers.join(',')}) or its topics is not reachable; retrying`,
      );
      expect(outage.line.reason).toMatch(/check KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD/);
      expect(outage.running).toBe(true);
      const lines = outage.output.split('\n').filter((line) => line.includes('"level":5'));
      expect(lines).toEqual([]);
      expect(outage.output).not.toMatch(/\n\s+at /);
      expect(outage.output).not.toContain(WRONG);
    },
    60_000,
  );
});
