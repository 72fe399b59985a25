/**
 * Validates HTTP responses against the API's own OpenAPI document: the operation is found by
 * path (concrete paths before templated ones, as OpenAPI prescribes) and method, the status
 * must be documented, and a JSON body must satisfy the documented schema (ajv, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1).
 *
 * @module
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import type { OpenApiObject } from '../../../api/openapi/document.ts';

/** What is checked of one response. */
export interface CheckedResponse {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

type Operation = { responses: Record<string, { content?: Record<string, { schema?: object }> }> };

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new Error(`${what} is not an object`);
  return value as Record<string, unknown>;
}

function templateMatches(template: string, path: string): boolean {
  const pattern = template.split('/').map((part) =>
    /^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  ).join('/');
  return new RegExp(`^${pattern}$`).test(path);
}

/**
 * A function asserting that a response is one `document` describes.
 *
 * @example
 * ```ts
 * const check = responseValidator(api.document);
 * check({ method: 'GET', path: '/healthz', status: 200, contentType, body });
 * ```
 */
export function responseValidator(document: OpenApiObject): (response: CheckedResponse) => void {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  const paths = asRecord(document.paths, 'paths');
  const concrete = Object.keys(paths).filter((path) => !path.includes('{'));
  const templated = Object.keys(paths).filter((path) => path.includes('{'));
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();

  return (response) => {
    const label = `${response.method} ${response.path} -> ${response.status}`;
    const template = concrete.find((path) => path.toLowerCase() === response.path.toLowerCase()) ??
      templated.find((path) => templateMatches(path, response.path));
    if (template === undefined) {
      // A path the document cannot list (nothing is there): only the envelope's errors.
      expect([401, 404, 405, 414], `${label}: undocumented path`).toContain(response.status);
      let validate = validators.get('Error');
      if (validate === undefined) {
        validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/Error' });
        validators.set('Error', validate);
      }
      const valid = validate(JSON.parse(response.body));
      expect(valid ? [] : validate.errors, `${label}: not the error envelope`).toEqual([]);
      return;
    }
    const item = asRecord(paths[template ?? ''], label);
    const method = response.method === 'HEAD' ? 'get' : response.method.toLowerCase();
    const operation = (item[method] ?? Object.values(item)[0]) as Operation | undefined;
    expect(operation, `${label}: no operation`).toBeDefined();
    if (operation === undefined) return;
    const documented = operation.responses[String(response.status)];
    expect(documented, `${label}: status not documented`).toBeDefined();
    const content = documented?.content;
    if (content === undefined || response.method === 'HEAD') {
      if (response.method !== 'HEAD') expect(response.body, `${label}: body`).toBe('');
      return;
    }
    const mediaType = response.contentType?.split(';')[0]?.trim() ?? '';
    const media = content[mediaType];
    expect(media, `${label}: content type ${mediaType} not documented`).toBeDefined();
    if (mediaType !== 'application/json' || media?.schema === undefined) return;
    const schemaKey = `${template} ${method} ${response.status}`;
    let validate = validators.get(schemaKey);
    if (validate === undefined) {
      validate = ajv.compile(rebase(media.schema));
      validators.set(schemaKey, validate);
    }
    const valid = validate(JSON.parse(response.body));
    expect(valid ? [] : validate.errors, `${label}: body does not match the schema`).toEqual([]);
  };
}

/** Points local `#/components/...` references at the added document. */
function rebase(schema: object): object {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"$ref":"#/components/', '"$ref":"openapi.json#/components/'),
  );
}

/**
 * Whether `document` allows `value` as the JSON body of `method path` sent as `mediaType` (the
 * path as the document lists it, template included).
 *
 * @example
 * ```ts
 * requestBodyAllowed(api.document, 'post', '/api/ingest/{source}', 'application/json', []); // true
 * ```
 */
export function requestBodyAllowed(
  document: OpenApiObject,
  method: string,
  path: string,
  mediaType: string,
  value: unknown,
): boolean {
  const operation = asRecord(
    asRecord(asRecord(document.paths, 'paths')[path], path)[method],
    method,
  );
  const content = asRecord(asRecord(operation.requestBody, 'requestBody').content, 'content');
  const schema = asRecord(asRecord(content[mediaType], mediaType).schema, 'schema');
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  return ajv.validate(rebase(schema), value);
}
