/**
 * The kafkajs options of the Kafka security settings: TLS files and SASL credentials handed
 * over as given, and the OAUTHBEARER hook reading its token file at each login, so that a file
 * refreshed by something else refreshes the login.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { kafkaSecurityOptions } from '../../src/kafka/security.ts';
import { pemFiles } from '../config/pem-files.ts';

test('plaintext without login gives kafkajs no ssl and no sasl', () => {
  expect(kafkaSecurityOptions({ tls: null, sasl: null })).toEqual({});
});

test('TLS files and a SCRAM login are handed to kafkajs as read', () => {
  const { ca, cert, key } = pemFiles();
  const options = kafkaSecurityOptions(
    loadConfig({
      KAFKA_TLS_CA_FILE: ca,
      KAFKA_TLS_CERT_FILE: cert,
      KAFKA_TLS_KEY_FILE: key,
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_USERNAME: 'ingest',
      KAFKA_SASL_PASSWORD: 'pa55',
    }).kafkaSecurity,
  );
  expect(options.ssl).toMatchObject({
    ca: expect.stringContaining('BEGIN CERTIFICATE'),
    cert: expect.stringContaining('BEGIN CERTIFICATE'),
    key: expect.stringContaining('BEGIN PRIVATE KEY'),
  });
  expect(options.sasl).toEqual({
    mechanism: 'scram-sha-256',
    username: 'ingest',
    password: 'pa55',
  });
});

test('OAUTHBEARER reads the token file at each login', async () => {
  const tokenFile = join(mkdtempSync(join(tmpdir(), 'oauth-')), 'token');
  writeFileSync(tokenFile, 'first-token\n');
  const { sasl } = kafkaSecurityOptions(
    loadConfig({
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: tokenFile,
    })
      .kafkaSecurity,
  );
  if (sasl === undefined || !('oauthBearerProvider' in sasl)) throw new Error('no oauthbearer');
  expect(await sasl.oauthBearerProvider()).toEqual({ value: 'first-token' });
  writeFileSync(tokenFile, 'refreshed-token\n');
  expect(await sasl.oauthBearerProvider()).toEqual({ value: 'refreshed-token' });
});
