/**
 * The same service on Deno (`deno task start`), from the same source: a representative subset
 * of the HTTP end-to-end checks, with Studio's SQL sandbox on (its parser and engine are
 * WebAssembly modules, run here by Deno). This is how CI checks the Deno runtime.
 */
import { describe } from 'vitest';
import { embeddedEnv, startChild } from '../api/helpers/child.ts';
import { childSuite } from '../api/helpers/child-suite.ts';

describe('deno task start (embedded default, Deno)', () => {
  childSuite(
    () =>
      startChild(
        'node_modules/.bin/deno',
        ['task', 'start'],
        embeddedEnv({ LOGS_ALL_SQL: 'sandboxed' }),
      ),
    4,
    true,
  );
});
