/**
 * A failure to reach Kafka, said so that the user knows which setting to fix: a refused SASL
 * login names the credentials' variables, an untrusted certificate the CA's. Never a secret:
 * kafkajs's messages carry none, and ours name variables, not values.
 *
 * @module
 */
import type { KafkaSecurity } from '../config.ts';
import { tlsFailureHint } from '../config/tls-failure.ts';

/**
 * `error` itself, or an error whose message says what to fix (and whose `cause` is `error`)
 * when it is a TLS or SASL failure.
 *
 * @example
 * ```ts
 * outage.failed(kafkaFailure(error, config.kafkaSecurity));
 * ```
 */
export function kafkaFailure(error: unknown, security: KafkaSecurity): unknown {
  const hint = kafkaHint(error, security);
  return hint === null ? error : new Error(hint, { cause: error });
}

function kafkaHint(error: unknown, security: KafkaSecurity): string | null {
  const tls = tlsFailureHint(error, 'KAFKA', security.tls);
  if (tls !== null) return `Kafka: ${tls}`;
  if (!(error instanceof Error)) return null;
  const message = error.message;
  if (
    error.name === 'KafkaJSSASLAuthenticationError' || /^SASL .*authentication failed/.test(message)
  ) {
    if (/mechanism is not supported/.test(message)) {
      return `Kafka does not offer ${security.sasl?.mechanism ?? 'this'} SASL mechanism ` +
        `(${message}): set KAFKA_SASL_MECHANISM to one it offers`;
    }
    const credentials = security.sasl?.mechanism === 'oauthbearer'
      ? 'the token in KAFKA_SASL_OAUTHBEARER_TOKEN_FILE'
      : 'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or their _FILE forms)';
    return `Kafka refused the SASL login (${message}): check ${credentials}`;
  }
  if (security.sasl === null && /UNSUPPORTED_SASL_MECHANISM|ILLEGAL_SASL_STATE/i.test(message)) {
    return `Kafka wants a SASL login (${message}): set KAFKA_SASL_MECHANISM and its credentials`;
  }
  return null;
}
