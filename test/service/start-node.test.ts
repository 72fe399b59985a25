/**
 * The README's start command, `npm start`, with nothing configured: one process with the API,
 * HTTP ingest and the in-memory store, checked over HTTP against the reference evaluator.
 */
import { describe } from 'vitest';
import { embeddedEnv, startChild } from '../api/helpers/child.ts';
import { childSuite } from '../api/helpers/child-suite.ts';

describe('npm start (embedded default, Node)', () => {
  childSuite(() => startChild('npm', ['start', '--silent'], embeddedEnv()));
});
