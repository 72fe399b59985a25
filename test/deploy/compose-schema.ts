/**
 * The Compose specification's JSON schema (vendored in test/fixtures/compose) as a validator, for
 * the tests of every Compose file the project ships.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';

const SCHEMA = join(import.meta.dirname, '..', 'fixtures', 'compose', 'compose-spec.json');

/**
 * The Compose schema's validator. The schema names draft-07 by an address Ajv does not know
 * (https, no fragment); draft-07 is Ajv's own default dialect, so the name is dropped.
 */
export function composeValidator(options: { allErrors: boolean }) {
  const ajv = new Ajv({ strict: false, validateFormats: false, ...options });
  const { $schema: _dialect, ...schema } = JSON.parse(readFileSync(SCHEMA, 'utf8')) as Record<
    string,
    unknown
  >;
  return { ajv, validate: ajv.compile(schema) };
}
