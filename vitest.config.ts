import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each test file gets its own process: native SQLite handles and child
    // processes stay isolated.
    pool: 'forks',
    // Two at least: most of a file's time is spent waiting on a served room,
    // a child process or an fsync, so on a 2-core machine (where vitest's
    // default, one fewer than the cores, runs one file at a time) two files
    // share the cores well.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    // expect.poll waits for what a live room does by itself (a page drawn
    // again, a file rewritten): up to 5 s, where 1 s failed under the load of
    // a 2-core CI machine. A poll that passes returns at once, so a passing
    // run is no slower; speed is measured in bench/, never here.
    expect: { poll: { timeout: 5_000 } },
  },
});
