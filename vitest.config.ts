import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each test file gets its own process: native SQLite handles and child
    // processes stay isolated.
    pool: 'forks',
    testTimeout: 30_000,
  },
});
