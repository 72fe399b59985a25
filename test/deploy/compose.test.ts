/**
 * docker-compose.yml, checked without a Docker engine (the build machines have none): valid
 * against the Compose specification's JSON schema (vendored in test/fixtures/compose), every
 * published port on the host's loopback, and every published service listening beyond
 * loopback inside its container, which is what a published port reaches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { dockerfileEnv, readDockerfile } from './dockerfile.ts';
import { composeValidator } from './compose-schema.ts';

const ROOT = join(import.meta.dirname, '..', '..');

interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[] | string;
  readonly environment?: Readonly<Record<string, string>>;
  readonly ports?: readonly string[];
  readonly secrets?: readonly string[];
}

interface ComposeFile {
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly secrets?: Readonly<Record<string, { readonly file?: string }>>;
}

/** Settings of the service (src/config.ts) whose value is a secret; each has a `_FILE` form. */
const SECRET_SETTINGS = [
  'API_KEYS',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
  'REDIS_USERNAME',
  'REDIS_PASSWORD',
  'UPSTASH_REDIS_REST_TOKEN',
];

/**
 * Where the service's containers are given a secret's value in their environment, or a `_FILE`
 * that is not a secret mounted into them.
 */
function secretsNotAsFiles(compose: ComposeFile): string[] {
  const found: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    if (service.build === undefined && service.image !== 'streaming-endpoints') continue;
    const env = service.environment ?? {};
    for (const setting of SECRET_SETTINGS) {
      if (env[setting] !== undefined) found.push(`${name}: ${setting} as a value`);
      const file = env[`${setting}_FILE`];
      if (file === undefined) continue;
      const secret = /^\/run\/secrets\/([\w.-]+)$/.exec(file)?.[1];
      if (secret === undefined || !(service.secrets ?? []).includes(secret)) {
        found.push(`${name}: ${setting}_FILE=${file} is not a secret mounted into it`);
      } else if (compose.secrets?.[secret] === undefined) {
        found.push(`${name}: the secret ${secret} is not declared`);
      }
    }
  }
  return found;
}

function readCompose(text: string): ComposeFile {
  // `<<: *anchor` merges (YAML 1.1) are what Compose reads too.
  return parse(text, { merge: true }) as ComposeFile;
}

/** Addresses that mean "every interface". */
const ANY_ADDRESS = new Set(['0.0.0.0', '::', '*', '']);

/** `host:published:container` (or shorter) of a short-syntax port, split. */
function portParts(port: string): { host: string | null; container: string } {
  const parts = port.split(':');
  return { host: parts.length === 3 ? parts[0]! : null, container: parts.at(-1)! };
}

/** The value after `flag` in a service's command, or null. */
function commandFlag(service: ComposeService, flag: string): string | null {
  const command = Array.isArray(service.command) ? service.command : [];
  const at = command.indexOf(flag);
  return at === -1 ? null : (command[at + 1] ?? null);
}

/** The value of a `--flag=value` argument of a service's command, or null. */
function commandOption(service: ComposeService, flag: string): string | null {
  const command = Array.isArray(service.command) ? service.command : [];
  const found = command.find((argument) => argument.startsWith(`${flag}=`));
  return found === undefined ? null : found.slice(flag.length + 1);
}

/** The host of a `host:port` listen address (`:9090` listens on every interface). */
function hostOf(address: string): string {
  return address.slice(0, address.lastIndexOf(':'));
}

/**
 * Where `service` listens inside its container for `containerPort`, by what it runs; a reason
 * when the file does not say (an image's default is not something this file can promise).
 */
export function listenAddress(
  name: string,
  service: ComposeService,
  containerPort: string,
  imageEnv: Readonly<Record<string, string>>,
): string {
  const env = service.environment ?? {};
  if (service.build !== undefined) {
    const host = env['HOST'] ?? imageEnv['HOST'];
    return host ?? `${name}: neither HOST in its environment nor in the Dockerfile`;
  }
  const image = service.image ?? '';
  if (image.startsWith('redis:')) {
    return commandFlag(service, '--bind') ?? `${name}: redis-server without --bind`;
  }
  if (image.startsWith('apache/kafka:')) {
    for (const listener of (env['KAFKA_LISTENERS'] ?? '').split(',')) {
      const match = /^\w+:\/\/([^:]*):(\d+)$/.exec(listener.trim());
      if (match?.[2] === containerPort) return match[1]!;
    }
    return `${name}: no KAFKA_LISTENERS entry for port ${containerPort}`;
  }
  if (image.startsWith('prom/prometheus:')) {
    const listen = commandOption(service, '--web.listen-address');
    return listen === null ? `${name}: prometheus without --web.listen-address` : hostOf(listen);
  }
  if (image.startsWith('grafana/grafana:')) {
    return env['GF_SERVER_HTTP_ADDR'] ?? `${name}: no GF_SERVER_HTTP_ADDR`;
  }
  if (name === 'upstash-rest') {
    return env['UPSTASH_REST_HOST'] ?? `${name}: no UPSTASH_REST_HOST`;
  }
  return `${name}: no rule says where ${image || 'its image'} listens; add one to this test`;
}

/** Every published service that would not be reached through its port, with why. */
function unreachable(
  compose: ComposeFile,
  imageEnv: Readonly<Record<string, string>>,
): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    for (const port of service.ports ?? []) {
      const { container } = portParts(port);
      const address = listenAddress(name, service, container, imageEnv);
      if (!ANY_ADDRESS.has(address)) problems.push(`${name} (${port}) listens on ${address}`);
    }
  }
  return problems;
}

describe('docker-compose.yml', () => {
  const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
  const compose = readCompose(text);
  const imageEnv = dockerfileEnv(readDockerfile(join(ROOT, 'Dockerfile')));

  test('is valid against the Compose specification schema', () => {
    const { ajv, validate } = composeValidator({ allErrors: true });
    const valid = validate(compose);
    expect(validate.errors ?? [], ajv.errorsText(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  test('a file the schema refuses is refused (the validator is live)', () => {
    const { validate } = composeValidator({ allErrors: false });
    expect(validate({ services: { app: { image: 'x', ports: 'not-a-list' } } })).toBe(false);
    expect(validate({ services: { app: { image: 'x', restart_policy: 'always' } } })).toBe(false);
  });

  test('publishes every port on the host loopback only', () => {
    for (const service of Object.values(compose.services)) {
      for (const port of service.ports ?? []) expect(portParts(port).host, port).toBe('127.0.0.1');
    }
  });

  test('every published service listens beyond loopback inside its container', () => {
    expect(unreachable(compose, imageEnv)).toEqual([]);
  });

  test("the service's secrets are files mounted as Compose secrets, never values", () => {
    expect(secretsNotAsFiles(compose)).toEqual([]);
    expect(compose.services['app']?.environment?.['API_KEYS_FILE']).toBe('/run/secrets/api_keys');
    const inline = readCompose(
      'services:\n  app:\n    build: .\n    environment: { API_KEYS: k, REDIS_PASSWORD_FILE: /tmp/p }',
    );
    expect(secretsNotAsFiles(inline)).toEqual([
      'app: API_KEYS as a value',
      'app: REDIS_PASSWORD_FILE=/tmp/p is not a secret mounted into it',
    ]);
  });

  test("the check catches the old app service (node:24, npm start, HOST's default) and monitoring on loopback", () => {
    const old = readCompose(
      [
        'services:',
        '  app:',
        '    image: node:24',
        "    command: ['sh', '-c', 'npm ci --omit=dev && exec npm start']",
        "    environment: { PORT: '8080' }",
        "    ports: ['127.0.0.1:8080:8080']",
        '  redis:',
        '    image: redis:7',
        "    command: ['redis-server', '--save', '']",
        "    ports: ['127.0.0.1:6379:6379']",
      ].join('\n'),
    );
    expect(unreachable(old, imageEnv)).toEqual([
      'app (127.0.0.1:8080:8080) listens on app: no rule says where node:24 listens; add one to this test',
      'redis (127.0.0.1:6379:6379) listens on redis: redis-server without --bind',
    ]);
    const built = readCompose(
      "services:\n  app:\n    build: .\n    environment: { HOST: '127.0.0.1' }\n    ports: ['127.0.0.1:8080:8080']",
    );
    expect(unreachable(built, imageEnv)).toEqual([
      'app (127.0.0.1:8080:8080) listens on 127.0.0.1',
    ]);
    const monitoring = readCompose(
      [
        'services:',
        '  prometheus:',
        '    image: prom/prometheus:v3.5.0',
        "    command: ['--web.listen-address=127.0.0.1:9090']",
        "    ports: ['127.0.0.1:9090:9090']",
        '  grafana:',
        '    image: grafana/grafana:12.1.1',
        "    ports: ['127.0.0.1:3000:3000']",
      ].join('\n'),
    );
    expect(unreachable(monitoring, imageEnv)).toEqual([
      'prometheus (127.0.0.1:9090:9090) listens on 127.0.0.1',
      'grafana (127.0.0.1:3000:3000) listens on grafana: no GF_SERVER_HTTP_ADDR',
    ]);
  });
});
