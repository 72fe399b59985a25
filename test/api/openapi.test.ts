/**
 * The OpenAPI document is well formed: 3.1, every route and endpoint path present, every
 * reference resolves, every schema compiles under JSON Schema 2020-12 (strict), every
 * operation documents its responses and every endpoint parameter. (Every response of the
 * end-to-end suites is validated against it there.)
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { openApiDocument } from '../../api/openapi/document.ts';
import { effectiveRecords } from '../../api/records.ts';

const records = effectiveRecords({ 'usage.api-counts': '00000000-0000-4000-8000-000000000001' });
const document = openApiDocument(records) as {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      { parameters?: { name: string }[]; responses: Record<string, { description?: string }> }
    >
  >;
  components: { schemas: Record<string, object> };
};

function references(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) { for (const item of value) references(item, found); }
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else references(item, found);
    }
  }
  return found;
}

describe('OpenAPI document', () => {
  test('is OpenAPI 3.1 with every route', () => {
    expect(document.openapi).toBe('3.1.0');
    const paths = Object.keys(document.paths);
    for (
      const route of [
        '/api/endpoints',
        '/api/ingest/{source}',
        '/openapi.json',
        '/healthz',
        '/readyz',
        '/metrics',
      ]
    ) {
      expect(paths).toContain(route);
    }
    for (const record of records) {
      expect(paths).toContain(`/api/endpoints/${record.name}`);
      expect(paths).toContain(`/api/endpoints/query/${record.name}`);
      expect(paths).toContain(`/api/endpoints/query/${record.id}`);
    }
    expect(paths).toContain('/api/endpoints/query/00000000-0000-4000-8000-000000000001');
  });

  test('every reference resolves and every schema compiles strictly', () => {
    for (const ref of references(document)) {
      const name = ref.replace('#/components/schemas/', '');
      expect(document.components.schemas[name], ref).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: true });
    const schemas = JSON.parse(
      JSON.stringify(document.components.schemas).replaceAll(
        '#/components/schemas/',
        'doc#/$defs/',
      ),
    ) as Record<string, object>;
    ajv.addSchema({ $id: 'doc', $defs: schemas });
    for (const [name, schema] of Object.entries(schemas)) {
      expect(() => ajv.compile(schema), name).not.toThrow();
    }
  });

  test('every operation documents its responses; endpoints their parameters and errors', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(Object.keys(operation.responses).length, `${method} ${path}`).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(response.description, `${method} ${path} ${status}`).toBeTruthy();
        }
      }
    }
    for (const record of records) {
      const operation = document.paths[`/api/endpoints/${record.name}`]?.get;
      expect(operation?.parameters?.map((parameter) => parameter.name)).toEqual([
        ...record.parameters.map((parameter) => parameter.name),
        'LF-ENDPOINT-REDACT-PII',
      ]);
      expect(Object.keys(operation?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '304', '400', '401', '405', '414', '500', '503']),
      );
    }
  });
});
