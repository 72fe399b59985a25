/**
 * The endpoint records as this deployment serves them: the registry's records with the ids
 * configuration overrides, and their public listing shape (`GET /api/endpoints`).
 *
 * @module
 */
import { type EndpointRecord, ENDPOINTS } from '../src/contract/registry.ts';

/**
 * The records with overridden ids applied (ids compared in lower case).
 *
 * @example
 * ```ts
 * effectiveRecords({ 'logs.all': '00000000-0000-4000-8000-000000000001' })[1]?.id;
 * // '00000000-0000-4000-8000-000000000001'
 * ```
 */
export function effectiveRecords(
  overrides: Readonly<Record<string, string>>,
): readonly EndpointRecord[] {
  return ENDPOINTS.map((record) => ({
    ...record,
    id: (overrides[record.name] ?? record.id).toLowerCase(),
  }));
}

/** A path that answers a record, and whether it also takes POST (parameters in a JSON body). */
export interface RecordRoute {
  readonly path: string;
  readonly post: boolean;
}

/**
 * The routes that answer `record`: the reference system's current paths (GET and POST, by name
 * or id), its older GET forms, and `/api/endpoints/{name}`.
 */
export function recordRoutes(record: EndpointRecord): RecordRoute[] {
  return [
    { path: `/api/endpoints/query/${record.name}`, post: true },
    { path: `/api/endpoints/query/${record.id}`, post: true },
    { path: `/api/endpoints/${record.name}`, post: false },
    { path: `/endpoints/query/${record.name}`, post: false },
    { path: `/endpoints/query/${record.id}`, post: false },
    { path: `/api/endpoints/query/name/${record.name}`, post: false },
  ];
}

/** The paths that answer `record`. */
export function recordPaths(record: EndpointRecord): string[] {
  return recordRoutes(record).map((route) => route.path);
}

/**
 * One record as listed by `GET /api/endpoints` (snake_case, as the reference system's records).
 *
 * @example
 * ```ts
 * listedRecord(ENDPOINTS[0]).max_rows; // 1000
 * ```
 */
export function listedRecord(record: EndpointRecord): Record<string, unknown> {
  return {
    name: record.name,
    id: record.id,
    description: record.description,
    max_rows: record.maxRows,
    cache_duration_seconds: record.cacheSeconds,
    proactive_requerying_seconds: record.warmingSeconds,
    sandboxable: record.sandboxing,
    redact_pii: record.redactPii,
    parameters: record.parameters.map((parameter) => ({
      name: parameter.name,
      required: parameter.required,
      description: parameter.description,
      ...(parameter.values === undefined ? {} : { values: [...parameter.values] }),
    })),
    paths: recordPaths(record),
  };
}
