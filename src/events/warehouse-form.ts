/**
 * The reference system's warehouse form of an event's nested values: every object a one-element
 * array of its record, recursively (`{"request":{"method":"GET"}}` is
 * `[{"request":[{"method":"GET"}]}]`); an array of objects is already an array of records. It is
 * how `logs.all` rows carry `metadata`, and how the reference system's Postgres backend answers a
 * caller's SQL (it wraps every nested map in a one-element list).
 *
 * @module
 */
import { isJsonObject, type Json, type JsonObject } from './types.ts';

/**
 * `value` in the warehouse's form.
 *
 * @example
 * ```ts
 * asRecords({ request: { method: 'GET' }, tags: ['a'] }); // [{ request: [{ method: 'GET' }], tags: ['a'] }]
 * ```
 */
export function asRecords(value: Json): Json {
  if (Array.isArray(value)) {
    return value.map((item) => isJsonObject(item) ? recordOf(item) : asRecords(item));
  }
  if (!isJsonObject(value)) return value;
  return [recordOf(value)];
}

/** The fields of `object`, each value in the warehouse's form. */
export function recordOf(object: JsonObject): JsonObject {
  const record: JsonObject = {};
  for (const key of Object.keys(object)) record[key] = asRecords(object[key] as Json);
  return record;
}
