/**
 * The suites mutation testing runs (`npm run test:mutation`, stryker.config.json): the in-memory
 * suites of the core, which need no broker and no Redis. docs/TESTING.md explains the scope.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/consumers/partition-processor.test.ts',
      'test/contract/**/*.test.ts',
      'test/endpoints/**/*.test.ts',
      'test/events/**/*.test.ts',
      'test/reference/**/*.test.ts',
      'test/rollup/aggregates.test.ts',
      'test/rollup/fold-and-read-memory.test.ts',
      'test/rollup/fold-columns.test.ts',
      'test/rollup/part-columns.test.ts',
      'test/rollup/part-merge.test.ts',
      'test/rollup/state-columns.test.ts',
      'test/rollup/fold-fuzz.test.ts',
      'test/rollup/fold.test.ts',
      'test/rollup/keys.test.ts',
      'test/rollup/partition-writer.test.ts',
      'test/rollup/partition-writer-resume.test.ts',
      'test/rollup/quantiles.test.ts',
      'test/rollup/recent-logs.test.ts',
      'test/rollup/stored-states.test.ts',
      'test/rollup/boundaries.test.ts',
      'test/store/memory.test.ts',
      'test/text/byte-slab.test.ts',
      'test/text/seven-bit.test.ts',
      'test/time/**/*.test.ts',
    ],
    testTimeout: 30_000,
    // A survivor runs every test that covers it, and the fold fuzz covers most of the write
    // path: at 100 cases (3.6 s) it would cost minutes of each full run; at 25, a quarter.
    env: { FOLD_FUZZ_RUNS: '25', FOLD_COLUMNS_RUNS: '25' },
  },
});
