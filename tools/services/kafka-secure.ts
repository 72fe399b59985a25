/**
 * A second development broker that refuses plaintext: one `SASL_SSL` listener on
 * 127.0.0.1:19094 (its KRaft controller on 19095, loopback only), TLS with the local CA's server
 * certificate (tools/services/certificates.ts, as a PKCS12 keystore made with `openssl`), SASL
 * with SCRAM-SHA-512, SCRAM-SHA-256, PLAIN and OAUTHBEARER (Kafka's unsecured tokens: for
 * trying a client's token hook, never for production). Its SCRAM users (`admin` for the broker itself,
 * `ingest` for clients) are created when its storage is formatted; their passwords live in
 * `.services/secrets/`. Its own data under `.services/kafka-secure/`, and a small heap.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCertificates, TLS_FILES } from './certificates.ts';
import { brokerService, readProperties, SERVER_PROPERTIES } from './kafka.ts';
import { serviceDir } from './paths.ts';
import { probeKafka } from './probes.ts';
import { runLogged } from './run.ts';
import { hasPassword, password, passwordFile } from './secrets.ts';
import type { Service } from './service.ts';

const NAME = 'kafka-secure';
const HOST = '127.0.0.1';
const PORT = 19094;
const CONTROLLER_PORT = 19095;

/** The client user of the secure broker. */
export const SECURE_KAFKA_USER = { username: 'ingest', passwordName: 'kafka-ingest' } as const;

/** The broker's own user, for its inter-broker listener. */
const ADMIN_USER = { username: 'admin', passwordName: 'kafka-admin' } as const;

/** `host:port` of the secure broker's SASL_SSL listener. */
export const SECURE_KAFKA_BROKERS = `${HOST}:${PORT}`;

/** The file clients read the client user's password from (`KAFKA_SASL_PASSWORD_FILE`). */
export function secureKafkaPasswordFile(): string {
  return passwordFile(SECURE_KAFKA_USER.passwordName);
}

/** The secure broker as a {@link Service}. */
export function secureKafkaService(): Service {
  const state = serviceDir(NAME);
  const dataDir = join(state, 'data');
  const propertiesFile = join(state, 'server.properties');
  const keystore = join(state, 'broker.p12');
  const service = brokerService({
    name: NAME,
    host: HOST,
    port: PORT,
    propertiesFile,
    dataDir,
    heapOpts: ['-Xms128m', '-Xmx384m'],
    formatArgs: () =>
      [ADMIN_USER, SECURE_KAFKA_USER].flatMap((user) =>
        ['SCRAM-SHA-512', 'SCRAM-SHA-256'].flatMap((mechanism) => [
          '--add-scram',
          `${mechanism}=[name=${user.username},password=${password(user.passwordName)}]`,
        ])
      ),
    probe: () =>
      probeKafka([SECURE_KAFKA_BROKERS], {
        ssl: { ca: readFileSync(TLS_FILES.ca, 'utf8') },
        sasl: {
          mechanism: 'scram-sha-512',
          username: SECURE_KAFKA_USER.username,
          password: password(SECURE_KAFKA_USER.passwordName),
        },
      }),
  });
  return {
    ...service,
    async prepare(log) {
      await ensureCertificates(log);
      // SCRAM credentials are stored at format: new passwords need a fresh storage.
      if (![ADMIN_USER, SECURE_KAFKA_USER].every((user) => hasPassword(user.passwordName))) {
        rmSync(dataDir, { recursive: true, force: true });
      }
      mkdirSync(state, { recursive: true });
      const storePassword = password('kafka-keystore');
      if (!existsSync(keystore)) {
        await runLogged('openssl', [
          'pkcs12',
          '-export',
          '-in',
          TLS_FILES.serverCert,
          '-inkey',
          TLS_FILES.serverKey,
          '-name',
          'broker',
          '-out',
          keystore,
          '-passout',
          `file:${passwordFile('kafka-keystore')}`,
        ], { logFile: join(state, 'keystore.log') });
      }
      // Holds the keystore's and the admin's passwords: readable by this user only.
      writeFileSync(propertiesFile, properties(dataDir, keystore, storePassword), { mode: 0o600 });
      await service.prepare(log);
    },
  };
}

/** The development broker's settings with this broker's listeners, TLS and SASL. */
function properties(dataDir: string, keystore: string, storePassword: string): string {
  const admin = `username="${ADMIN_USER.username}" password="${password(ADMIN_USER.passwordName)}"`;
  const ingest = password(SECURE_KAFKA_USER.passwordName);
  const overrides: Record<string, string> = {
    'controller.quorum.voters': `1@${HOST}:${CONTROLLER_PORT}`,
    listeners: `SASL_SSL://${HOST}:${PORT},CONTROLLER://${HOST}:${CONTROLLER_PORT}`,
    'advertised.listeners': `SASL_SSL://${HOST}:${PORT}`,
    'listener.security.protocol.map': 'SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name': 'SASL_SSL',
    'log.dirs': dataDir,
    'sasl.enabled.mechanisms': 'SCRAM-SHA-512,SCRAM-SHA-256,PLAIN,OAUTHBEARER',
    'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config':
      `org.apache.kafka.common.security.scram.ScramLoginModule required ${admin};`,
    'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config':
      `org.apache.kafka.common.security.scram.ScramLoginModule required ${admin};`,
    'listener.name.sasl_ssl.plain.sasl.jaas.config':
      `org.apache.kafka.common.security.plain.PlainLoginModule required ${admin} ` +
      `user_${ADMIN_USER.username}="${password(ADMIN_USER.passwordName)}" ` +
      `user_${SECURE_KAFKA_USER.username}="${ingest}";`,
    // Without a server callback handler, Kafka takes unsecured (unsigned) JWTs that are not
    // expired and name a subject.
    'listener.name.sasl_ssl.oauthbearer.sasl.jaas.config':
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ' +
      `unsecuredLoginStringClaim_sub="${ADMIN_USER.username}";`,
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': keystore,
    'ssl.keystore.password': storePassword,
    'ssl.key.password': storePassword,
    // The broker as a client of itself (inter-broker) trusts the local CA.
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': TLS_FILES.ca,
    // A client certificate is checked when given (mutual TLS), not required. On a SASL_SSL
    // listener only the listener's own setting counts.
    'listener.name.sasl_ssl.ssl.client.auth': 'requested',
  };
  const base = [...readProperties(SERVER_PROPERTIES)].filter(([key]) => !(key in overrides));
  return [...base, ...Object.entries(overrides)].map(([key, value]) => `${key}=${value}`)
    .join('\n') + '\n';
}
