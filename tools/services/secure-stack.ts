/**
 * The secure services, beside the plaintext ones and on their own ports: a broker that takes
 * only SASL_SSL (tools/services/kafka-secure.ts), a TLS-only Redis on 16390 and a TLS-only Redis
 * Cluster on 17101 to 17103, both with one ACL user and the default user off. All trust the
 * local CA of tools/services/certificates.ts. Started by `npm run services:up -- --secure`
 * (or `SERVICES_SECURE=1`), for the suites that test production-like connections.
 *
 * @module
 */
import { TLS_FILES } from './certificates.ts';
import type { SecureServiceEnv } from './env-file.ts';
import {
  SECURE_KAFKA_BROKERS,
  SECURE_KAFKA_USER,
  secureKafkaPasswordFile,
  secureKafkaService,
} from './kafka-secure.ts';
import { clusterNodes, redisClusterNodeServices, SECURE_CLUSTER } from './redis-cluster.ts';
import { redisServerService, SECURE_REDIS_USER, secureRedisPasswordFile } from './redis.ts';
import type { Service } from './service.ts';

/** The secure stack's services. */
export interface SecureStack {
  readonly kafka: Service;
  readonly redis: Service;
  readonly clusterNodes: readonly Service[];
}

const SECURE_REDIS_PORT = 16390;

/** The secure services of this repository. */
export function secureStack(): SecureStack {
  return {
    kafka: secureKafkaService(),
    redis: redisServerService({
      name: 'redis-secure',
      port: SECURE_REDIS_PORT,
      extraArgs: [],
      secure: SECURE_REDIS_USER,
    }),
    clusterNodes: redisClusterNodeServices(SECURE_CLUSTER),
  };
}

/** Where clients find the secure services, and how they log in (passwords as files). */
export function secureEnv(of: SecureStack): SecureServiceEnv {
  return {
    SECURE_TLS_CA_FILE: TLS_FILES.ca,
    SECURE_TLS_UNTRUSTED_CA_FILE: TLS_FILES.untrustedCa,
    SECURE_TLS_UNTRUSTED_KEY_FILE: TLS_FILES.untrustedCaKey,
    SECURE_TLS_CLIENT_CERT_FILE: TLS_FILES.clientCert,
    SECURE_TLS_CLIENT_KEY_FILE: TLS_FILES.clientKey,
    SECURE_KAFKA_BROKERS,
    SECURE_KAFKA_SASL_MECHANISM: 'scram-sha-512',
    SECURE_KAFKA_SASL_USERNAME: SECURE_KAFKA_USER.username,
    SECURE_KAFKA_SASL_PASSWORD_FILE: secureKafkaPasswordFile(),
    SECURE_REDIS_URL: of.redis.address,
    SECURE_REDIS_CLUSTER_NODES: clusterNodes(SECURE_CLUSTER).join(','),
    SECURE_REDIS_USERNAME: SECURE_REDIS_USER.username,
    SECURE_REDIS_PASSWORD_FILE: secureRedisPasswordFile(SECURE_REDIS_USER),
  };
}
