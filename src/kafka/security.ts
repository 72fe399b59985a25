/**
 * The kafkajs `ssl` and `sasl` options of the configured {@link KafkaSecurity}: the one place
 * that hands a Kafka client its secrets.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import type { KafkaSecurity } from '../config.ts';

/**
 * kafkajs options for `security`: none for plaintext without login.
 *
 * @example
 * ```ts
 * new Kafka({ clientId, brokers, ...kafkaSecurityOptions(config.kafkaSecurity) });
 * ```
 */
export function kafkaSecurityOptions(security: KafkaSecurity): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { tls, sasl } = security;
  const options: Pick<KafkaConfig, 'ssl' | 'sasl'> = {};
  if (tls !== null) {
    options.ssl = {
      ...(tls.ca === null ? {} : { ca: tls.ca }),
      ...(tls.cert === null ? {} : { cert: tls.cert }),
      ...(tls.key === null ? {} : { key: tls.key.reveal() }),
    };
  }
  if (sasl !== null) options.sasl = saslOptions(sasl);
  return options;
}

function saslOptions(sasl: NonNullable<KafkaSecurity['sasl']>): SASLOptions {
  if (sasl.mechanism === 'oauthbearer') {
    const { tokenFile } = sasl;
    return {
      mechanism: 'oauthbearer',
      // Read at each login: whatever refreshes the file (a sidecar, a cron job) refreshes the token.
      oauthBearerProvider: async () => ({ value: (await readFile(tokenFile, 'utf8')).trim() }),
    };
  }
  const { username, password } = sasl;
  return { mechanism: sasl.mechanism, username, password: password.reveal() };
}
