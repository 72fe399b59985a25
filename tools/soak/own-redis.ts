/**
 * A Redis of the soak's own on a free port (`tools/services`' redis-server, persistence off but
 * for the snapshot its planned restart saves), never the shared development Redis: the soak
 * restarts it.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { freePort } from '../services/free-port.ts';
import { down, up } from '../services/lifecycle.ts';
import { serviceDir } from '../services/paths.ts';
import { redisServerService } from '../services/redis.ts';
import type { Service } from '../services/service.ts';

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
