import { defineConfig } from 'vitest/config';

/**
 * The image test (`npm run image:test`, which builds the image first: tools/image/test.sh):
 * test/image/ only, with the same service discovery as `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    pool: 'forks',
    execArgv: ['--disable-warning=TimeoutNegativeWarning'],
  },
});
