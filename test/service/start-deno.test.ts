/**
 * The same service on Deno (`deno task start`), from the same source: a representative subset
 * of the HTTP end-to-end checks. This is how CI checks the Deno runtime.
 */
import { describe } from 'vitest';
import { embeddedEnv, startChild } from '../api/helpers/child.ts';
import { childSuite } from '../api/helpers/child-suite.ts';

describe('deno task start (embedded default, Deno)', () => {
  childSuite(() => startChild('node_modules/.bin/deno', ['task', 'start'], embeddedEnv()), 4);
});
