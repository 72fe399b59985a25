/**
 * The end-to-end check shared by the suites that run a whole service (in process, as a child,
 * in the image): a stream ingested over HTTP, every line accepted and every response valid
 * against the service's own OpenAPI document, then the live answers of the queries equal to what
 * the reference evaluator makes of the events.
 *
 * @module
 */
import { expect } from 'vitest';
import type { EndpointName } from '../../../src/contract/registry.ts';
import type { Stream } from '../../rollup/fold-and-read.ts';
import { type Call, expectLiveAnswersMatchReference, ingestLines } from './http.ts';
import { responseValidator } from './openapi-validator.ts';

/**
 * Ingests `stream` through `call`, 1,000 lines a request, waits for `settled` (consumers that
 * fold the ingest from Kafka draining it; nothing where the ingest folds directly), then
 * compares the answers of `queries` with the reference.
 */
export async function expectIngestedAnswers(
  call: Call,
  stream: Stream,
  queries: readonly (readonly [EndpointName, string])[],
  settled: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const check = responseValidator(await (await call('/openapi.json')).json());
  const totals = await ingestLines(call, stream.lines, check, 1_000);
  expect(totals.accepted).toBe(stream.events.length);
  await settled();
  await expectLiveAnswersMatchReference(call, stream.events, queries, check);
}
