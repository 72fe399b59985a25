import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Run by `npm run image:test` after building the image (vitest.image.config.ts).
    exclude: ['test/image/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Service suites share one broker and one Redis on a 2-core machine: run files one at a time
    // so that crash and load tests do not starve each other.
    fileParallelism: false,
    pool: 'forks',
    // kafkajs (2.2.4) schedules negative timeouts, which Node 24 warns about on every run.
    execArgv: ['--disable-warning=TimeoutNegativeWarning'],
  },
});
