/**
 * Running the store's Lua scripts on a Redis connection: by SHA-1, loaded where the node does not
 * know it yet, read-only scripts as `EVALSHA_RO` (answered while writes are paused) except on a
 * Redis before 7.0, and arguments handed to node-redis without copies.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import type { LuaScript } from './lua-script.ts';
import type { ScriptCall } from './scripts.ts';

/** An argument as node-redis takes it. */
export type RedisArgument = string | Buffer;

/** What a script is sent through: one command, to the node of `firstKey`. */
export interface ScriptConnection {
  send(firstKey: string | undefined, args: RedisArgument[], asBytes?: boolean): Promise<unknown>;
}

/** Connections to a Redis before 7.0, which has no `EVALSHA_RO`: they read with `EVALSHA`. */
const withoutReadOnlyScripts = new WeakSet<ScriptConnection>();

/**
 * Runs a script by its SHA-1, loading it on the node that does not know it yet; a script that
 * only reads as `EVALSHA_RO`, which Redis answers while writes are paused. With `asBytes`, the
 * reply's strings arrive as Buffers.
 */
export async function runScript(
  connection: ScriptConnection,
  script: LuaScript,
  call: ScriptCall,
  asBytes = false,
): Promise<unknown> {
  const firstKey = call.keys[0];
  const readOnly = script.readOnly && !withoutReadOnlyScripts.has(connection);
  const suffix = readOnly ? '_RO' : '';
  try {
    const command = scriptCommand(`EVALSHA${suffix}`, script.sha1, call);
    return await connection.send(firstKey, command, asBytes);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    if (readOnly && /unknown command/i.test(error.message)) {
      withoutReadOnlyScripts.add(connection);
      return await runScript(connection, script, call, asBytes);
    }
    if (!error.message.startsWith('NOSCRIPT')) throw error;
    return await connection.send(
      firstKey,
      scriptCommand(`EVAL${suffix}`, script.source, call),
      asBytes,
    );
  }
}

/**
 * `[name, script, number of keys, ...keys, ...args]` in one array of its final length: spreading
 * a commit's thousands of arguments into a tail and the tail into the command copied them twice
 * (0.8 KB allocated per event, `bench:consumer -- --allocations`).
 */
function scriptCommand(name: string, script: string, call: ScriptCall): RedisArgument[] {
  const { keys, args } = call;
  const command = new Array<RedisArgument>(3 + keys.length + args.length);
  command[0] = name;
  command[1] = script;
  command[2] = String(keys.length);
  let at = 3;
  for (const key of keys) command[at++] = key;
  for (const arg of args) command[at++] = redisArgument(arg);
  return command;
}

/**
 * `value` as node-redis takes it: bytes as a Buffer over the same memory (node-redis writes a
 * Buffer as it is, and refuses any other byte array).
 */
export function redisArgument(value: string | Uint8Array): RedisArgument {
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
