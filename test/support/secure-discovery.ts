/**
 * The secure services of a test run (`npm run services:up -- --secure`), found by their
 * `SECURE_*` variables, from the environment or `.services/env`: each turned into the settings
 * a client of ours is given (src/config.ts variables), and probed with them. The test setup
 * never starts them itself (a second broker takes a minute): CI starts them, and with
 * REQUIRE_SERVICES=1 a missing one fails the run.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { kafkaSecurityOptions } from '../../src/kafka/security.ts';
import { probeKafka, probeRedis, probeRedisCluster } from '../../tools/services/probes.ts';
import type { SecureAddress, ServiceAddresses } from './services.ts';

type Variables = Readonly<Record<string, string | undefined>>;

/** The secure services, by name. */
export type SecureName = 'secureKafka' | 'secureRedis' | 'secureRedisCluster';

/** How each secure service is read from variables and probed. */
export const SECURE_SERVICES: {
  readonly [N in SecureName]: {
    readonly read: (variables: Variables) => ServiceAddresses[N] | undefined;
    readonly probe: (address: ServiceAddresses[N]) => Promise<void>;
  };
} = {
  secureKafka: {
    read: (variables) => {
      const common = commonOf(variables);
      const brokers = variables['SECURE_KAFKA_BROKERS'];
      if (common === undefined || brokers === undefined || brokers === '') return undefined;
      return {
        ...common,
        brokers: brokers.split(','),
        settings: {
          KAFKA_BROKERS: brokers,
          KAFKA_TLS_CA_FILE: common.caFile,
          KAFKA_SASL_MECHANISM: variables['SECURE_KAFKA_SASL_MECHANISM'] ?? '',
          KAFKA_SASL_USERNAME: variables['SECURE_KAFKA_SASL_USERNAME'] ?? '',
          KAFKA_SASL_PASSWORD_FILE: variables['SECURE_KAFKA_SASL_PASSWORD_FILE'] ?? '',
        },
      };
    },
    probe: (kafka) =>
      probeKafka(kafka.brokers, kafkaSecurityOptions(loadConfig(kafka.settings).kafkaSecurity)),
  },
  secureRedis: {
    read: (variables) => {
      const common = commonOf(variables);
      const url = variables['SECURE_REDIS_URL'];
      if (common === undefined || url === undefined || url === '') return undefined;
      return { ...common, url, settings: { REDIS_URL: url, ...redisLogin(variables, common) } };
    },
    probe: (redis) => probeRedis(redis.url, loginOf(redis)),
  },
  secureRedisCluster: {
    read: (variables) => {
      const common = commonOf(variables);
      const nodes = variables['SECURE_REDIS_CLUSTER_NODES'];
      if (common === undefined || nodes === undefined || nodes === '') return undefined;
      return {
        ...common,
        nodes: nodes.split(','),
        settings: { REDIS_CLUSTER_NODES: nodes, REDIS_TLS: '1', ...redisLogin(variables, common) },
      };
    },
    probe: (cluster) => probeRedisCluster(cluster.nodes, loginOf(cluster)),
  },
};

type Common = Omit<SecureAddress, 'settings'> & { readonly caFile: string };

function commonOf(variables: Variables): Common | undefined {
  const caFile = variables['SECURE_TLS_CA_FILE'];
  if (caFile === undefined || caFile === '') return undefined;
  return {
    caFile,
    untrustedCaFile: variables['SECURE_TLS_UNTRUSTED_CA_FILE'] ?? '',
    untrustedKeyFile: variables['SECURE_TLS_UNTRUSTED_KEY_FILE'] ?? '',
    clientCertFile: variables['SECURE_TLS_CLIENT_CERT_FILE'] ?? '',
    clientKeyFile: variables['SECURE_TLS_CLIENT_KEY_FILE'] ?? '',
  };
}

function redisLogin(variables: Variables, common: Common): Record<string, string> {
  return {
    REDIS_TLS_CA_FILE: common.caFile,
    REDIS_USERNAME: variables['SECURE_REDIS_USERNAME'] ?? '',
    REDIS_PASSWORD_FILE: variables['SECURE_REDIS_PASSWORD_FILE'] ?? '',
  };
}

/** The probes' login, read from the files the settings name. */
function loginOf(address: SecureAddress) {
  const file = (name: string) => readFileSync(address.settings[name] ?? '', 'utf8');
  return {
    username: address.settings['REDIS_USERNAME'] ?? '',
    password: file('REDIS_PASSWORD_FILE').trim(),
    ca: file('REDIS_TLS_CA_FILE'),
  };
}
