/**
 * A Redis of a tool's or a test's own on a free port (redis-server, persistence off but
 * for a snapshot that `SHUTDOWN SAVE` writes), never the shared development Redis: what runs
 * on it may restart it, and nothing else writes to it.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { freePort } from './free-port.ts';
import { down, up } from './lifecycle.ts';
import { serviceDir } from './paths.ts';
import { redisServerService } from './redis.ts';
import type { Service } from './service.ts';

/** Starts a fresh Redis named `name` (its folder under `.services/`) on a free port. */
export async function startOwnRedis(name: string): Promise<Service> {
  const redis = redisServerService({ name, port: await freePort(), extraArgs: [] });
  rmSync(serviceDir(redis.name), { recursive: true, force: true });
  await up(redis, () => undefined);
  return redis;
}

/** Stops a Redis of {@link startOwnRedis} and deletes its folder (its log, its snapshot). */
export async function stopOwnRedis(redis: Service): Promise<void> {
  await down(redis);
  rmSync(serviceDir(redis.name), { recursive: true, force: true });
}
