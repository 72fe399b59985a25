/**
 * Does a service really answer? One probe per protocol, each a real request with short
 * timeouts, shared by `npm run services:*` and the test harness (test/support).
 *
 * Every probe resolves when the service answers and rejects with the reason otherwise.
 *
 * @module
 */
import { connect } from 'node:net';
import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import { createClient } from 'redis';

/** How a probe reaches a secure Redis: over TLS trusting `ca`, as an ACL user. */
export interface RedisLogin {
  readonly username: string;
  readonly password: string;
  /** PEM of the CA that signed the server's certificate. */
  readonly ca: string;
}

/** A node-redis client for one probe: short timeouts, no reconnection, TLS and login if given. */
function probeClient(url: string, login: RedisLogin | undefined) {
  const socket = { connectTimeout: 1_000, reconnectStrategy: false as const };
  return login === undefined ? createClient({ url, socket }) : createClient({
    url,
    username: login.username,
    password: login.password,
    socket: { ...socket, tls: true, ca: login.ca },
  });
}

/**
 * Asks the Kafka cluster for its topics (a metadata request) through kafkajs.
 *
 * @example
 * ```ts
 * await probeKafka(['127.0.0.1:9092']);
 * ```
 */
export async function probeKafka(
  brokers: readonly string[],
  security: Pick<KafkaConfig, 'ssl' | 'sasl'> = {},
): Promise<void> {
  const kafka = new Kafka({
    clientId: 'services-probe',
    brokers: [...brokers],
    ...security,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * Sends PING over the Redis protocol (node-redis) and expects PONG.
 *
 * @example
 * ```ts
 * await probeRedis('redis://127.0.0.1:6379');
 * ```
 */
export async function probeRedis(url: string, login?: RedisLogin): Promise<void> {
  const client = probeClient(url, login);
  // Without a listener, a connection error would also be thrown as an unhandled 'error' event.
  let failure: unknown;
  client.on('error', (error: unknown) => {
    failure ??= error;
  });
  try {
    await client.connect();
    const reply = await client.ping();
    if (reply !== 'PONG') {
      throw new Error(`expected PONG from ${url}, got ${JSON.stringify(reply)}`);
    }
  } catch (error) {
    throw failure ?? error;
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** Whether the nodes form one healthy cluster, and if not, why. */
export type ClusterHealth = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Asks every node for `CLUSTER INFO`: healthy when each says `cluster_state:ok`, knows at least
 * the nodes given (a cluster with replicas knows more nodes than the masters it was given by) and
 * sees all 16384 slots assigned.
 */
export async function clusterHealth(
  nodes: readonly string[],
  login?: RedisLogin,
): Promise<ClusterHealth> {
  for (const node of nodes) {
    const client = probeClient(`${login === undefined ? 'redis' : 'rediss'}://${node}`, login);
    let failure: unknown;
    client.on('error', (error: unknown) => {
      failure ??= error;
    });
    try {
      await client.connect();
      const info = String(await client.sendCommand(['CLUSTER', 'INFO']));
      const field = (name: string) => new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];
      if (field('cluster_state') !== 'ok') return { ok: false, reason: `${node}: state not ok` };
      if (!(Number(field('cluster_known_nodes')) >= nodes.length)) {
        return { ok: false, reason: `${node} knows ${field('cluster_known_nodes')} nodes` };
      }
      if (field('cluster_slots_assigned') !== '16384') {
        return { ok: false, reason: `${node}: ${field('cluster_slots_assigned')} slots assigned` };
      }
    } catch (error) {
      const cause = failure ?? error;
      return { ok: false, reason: `${node}: ${cause instanceof Error ? cause.message : cause}` };
    } finally {
      if (client.isOpen) client.destroy();
    }
  }
  return { ok: true };
}

/** Rejects unless the nodes form one healthy cluster (see {@link clusterHealth}). */
export async function probeRedisCluster(
  nodes: readonly string[],
  login?: RedisLogin,
): Promise<void> {
  const health = await clusterHealth(nodes, login);
  if (!health.ok) throw new Error(`the Redis Cluster is not healthy: ${health.reason}`);
}

/**
 * Sends `["PING"]` to an Upstash-REST-compatible endpoint with the given token and expects
 * `{"result": "PONG"}`.
 *
 * @example
 * ```ts
 * await probeUpstashRest('http://127.0.0.1:8079', 'local-dev-token');
 * ```
 */
export async function probeUpstashRest(url: string, token: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(['PING']),
    signal: AbortSignal.timeout(2_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}: ${excerpt(text)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${url} answered with something other than JSON: ${excerpt(text)}`);
  }
  if (typeof body !== 'object' || body === null || !('result' in body) || body.result !== 'PONG') {
    throw new Error(`expected {"result":"PONG"} from ${url}, got ${excerpt(text)}`);
  }
}

/** True when something accepts TCP connections on `host:port`. */
export function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1_000);
    const done = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** The start of a response body on one line, for error messages. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
