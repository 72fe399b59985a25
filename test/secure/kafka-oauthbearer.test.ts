/**
 * OAUTHBEARER through the token-file hook (KAFKA_SASL_OAUTHBEARER_TOKEN_FILE) against the
 * SASL_SSL broker, which takes Kafka's unsecured JWTs (unsigned; a real deployment's broker
 * checks a signature, the client side is the same): a login reads the file as it is then.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { kafkaClient } from '../../src/kafka/client.ts';
import { createLogger } from '../../src/logger.ts';
import { describeWithServices } from '../support/services.ts';

/** An unsigned JWT for `sub`, valid from a minute ago for `lifetimeS` seconds from now. */
function unsecuredToken(sub: string, lifetimeS: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none' })}.${part({ sub, iat: now - 120, exp: now + lifetimeS })}.`;
}

describeWithServices(['secureKafka'], 'OAUTHBEARER on the SASL_SSL broker', ({ secureKafka }) => {
  test('each login takes the token the file holds then', async () => {
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'oauthbearer-')), 'token');
    // Expired: refused until whatever refreshes the file writes a valid one.
    writeFileSync(tokenFile, `${unsecuredToken('ingest', -60)}\n`);
    const config = loadConfig({
      KAFKA_BROKERS: secureKafka.brokers.join(','),
      KAFKA_TLS_CA_FILE: secureKafka.settings['KAFKA_TLS_CA_FILE'] ?? '',
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: tokenFile,
    });
    const kafka = kafkaClient(config, createLogger('silent', 'test'), secureKafka.brokers);
    const refused = kafka.admin();
    const metadata = async () => {
      await refused.connect();
      return await refused.listTopics();
    };
    await expect(metadata()).rejects.toThrow();
    await refused.disconnect();

    // The same client's next login reads the token written since.
    writeFileSync(tokenFile, `${unsecuredToken('ingest', 3_600)}\n`);
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(Array.isArray(await admin.listTopics())).toBe(true);
    } finally {
      await admin.disconnect();
    }
  }, 60_000);
});
