/**
 * The test tiers, one vitest project each (test/support/tiers.ts decides which file is in which),
 * run in this order by `npx vitest run`; `npm test` runs the services and faults tiers side by side
 * instead, as two vitest processes, when the services answer at configured addresses
 * (test/support/run-tiers.ts: vitest runs projects together only with one worker count):
 *
 * - `unit`: no service, no global setup, files in parallel (`npm run test:unit`);
 * - `services`: the real Kafka, Redis, Redis Cluster, browser and tools, found or started once by
 *   test/support/global-setup.ts; files one at a time, as they share those services
 *   (`npm run test:services`);
 * - `faults`: processes killed, stores stopped, paused, rolled back, failed over, the soak; each
 *   file on a Redis or cluster of its own and topics of its own, so three run side by side
 *   (`npm run test:faults`), the longest first (test/support/sequencer.ts).
 *
 * @module
 */
import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.ts';
import { testTiers } from './test/support/tiers.ts';

const tiers = testTiers(import.meta.dirname);

/** What every tier shares. */
const common = {
  testTimeout: 30_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  // kafkajs (2.2.4) schedules negative timeouts, which Node 24 warns about on every run.
  execArgv: ['--disable-warning=TimeoutNegativeWarning'],
};

function tier(
  name: string,
  include: readonly string[],
  order: number,
  options: { readonly workers: number; readonly services: boolean },
): TestProjectInlineConfiguration {
  return {
    test: {
      ...common,
      name,
      include: [...include],
      maxWorkers: options.workers,
      sequence: { groupOrder: order },
      ...(options.services ? { globalSetup: ['test/support/global-setup.ts'] } : {}),
    },
  };
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      tier('unit', tiers.unit, 0, { workers: 3, services: false }),
      tier('services', tiers.services, 1, { workers: 1, services: true }),
      tier('faults', tiers.faults, 2, { workers: 3, services: true }),
    ],
  },
});
