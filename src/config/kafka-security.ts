/**
 * How the Kafka clients of every role (and `npm run replay`) reach a broker that wants TLS,
 * SASL or both, as managed Kafka services do:
 *
 * | variable                             | meaning                                              |
 * | ------------------------------------ | ---------------------------------------------------- |
 * | `KAFKA_TLS`                          | TLS on (default: on when a `KAFKA_TLS_*_FILE` is set) |
 * | `KAFKA_TLS_CA_FILE`                  | PEM CAs to trust instead of the system's             |
 * | `KAFKA_TLS_CERT_FILE`, `_KEY_FILE`   | client certificate and key (mutual TLS)              |
 * | `KAFKA_SASL_MECHANISM`               | plain, scram-sha-256, scram-sha-512 or oauthbearer   |
 * | `KAFKA_SASL_USERNAME[_FILE]`         | SASL user (plain, scram-*)                           |
 * | `KAFKA_SASL_PASSWORD[_FILE]`         | its password                                         |
 * | `KAFKA_SASL_OAUTHBEARER_TOKEN_FILE`  | file holding the current token, read at each login   |
 *
 * @module
 */
import { ConfigError, type Env, fileContent, flag, secret, text } from './read.ts';
import type { Secret } from './secret.ts';
import { tlsFilesSet, type TlsSettings, tlsSettings } from './tls.ts';

/** SASL mechanisms that log in with a user name and a password. */
export const PASSWORD_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/** The SASL login of the Kafka clients. */
export type KafkaSasl =
  | {
    readonly mechanism: (typeof PASSWORD_MECHANISMS)[number];
    readonly username: string;
    readonly password: Secret;
  }
  /**
   * OAUTHBEARER: the token is whatever `tokenFile` holds when kafkajs logs in (each new
   * connection, and before the token's lifetime ends), so a sidecar that refreshes the file
   * refreshes the login.
   */
  | { readonly mechanism: 'oauthbearer'; readonly tokenFile: string };

/** TLS and SASL of the Kafka clients; both null: plaintext without login. */
export interface KafkaSecurity {
  readonly tls: TlsSettings | null;
  readonly sasl: KafkaSasl | null;
}

const MECHANISMS = [...PASSWORD_MECHANISMS, 'oauthbearer'] as const;

/** Reads the Kafka security variables; throws {@link ConfigError}. */
export function kafkaSecurity(env: Env): KafkaSecurity {
  const fileSet = tlsFilesSet(env, 'KAFKA');
  const tlsOn = flag(env, 'KAFKA_TLS', fileSet !== null);
  if (!tlsOn && fileSet !== null) {
    throw new ConfigError('KAFKA_TLS', text(env, 'KAFKA_TLS') ?? '', `on when ${fileSet} is set`);
  }
  return { tls: tlsOn ? tlsSettings(env, 'KAFKA') : null, sasl: kafkaSasl(env) };
}

function kafkaSasl(env: Env): KafkaSasl | null {
  const given = text(env, 'KAFKA_SASL_MECHANISM');
  const username = secret(env, 'KAFKA_SASL_USERNAME', 'the SASL user name');
  const password = secret(env, 'KAFKA_SASL_PASSWORD', 'the SASL password');
  const tokenFile = text(env, 'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE');
  if (given === null) {
    const stray = username !== null
      ? 'KAFKA_SASL_USERNAME'
      : password !== null
      ? 'KAFKA_SASL_PASSWORD'
      : tokenFile !== null
      ? 'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE'
      : null;
    if (stray === null) return null;
    throw new ConfigError(
      'KAFKA_SASL_MECHANISM',
      '',
      `one of ${MECHANISMS.join(', ')} when ${stray} is set`,
    );
  }
  const mechanism = MECHANISMS.find((candidate) => candidate === given.toLowerCase());
  if (mechanism === undefined) {
    throw new ConfigError('KAFKA_SASL_MECHANISM', given, MECHANISMS.join(', '));
  }
  if (mechanism === 'oauthbearer') {
    if (tokenFile === null) {
      throw new ConfigError(
        'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE',
        '',
        'the path of a file holding the OAuth bearer token when KAFKA_SASL_MECHANISM=oauthbearer',
      );
    }
    // Read once here, so a wrong path stops the start instead of every login.
    fileContent(env, 'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE', 'the OAuth bearer token');
    return { mechanism, tokenFile };
  }
  if (username === null) {
    throw new ConfigError(
      'KAFKA_SASL_USERNAME',
      '',
      `the SASL user name (or KAFKA_SASL_USERNAME_FILE) with ${mechanism}`,
    );
  }
  if (password === null) {
    throw new ConfigError(
      'KAFKA_SASL_PASSWORD',
      '',
      `the SASL password (or KAFKA_SASL_PASSWORD_FILE) with ${mechanism}`,
    );
  }
  return { mechanism, username: username.reveal(), password };
}
