import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Integration tests start real servers and child processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
