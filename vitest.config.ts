import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property tests from a fixed seed (FC_SEED overrides it): see the file.
    setupFiles: ['test/setup/fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Integration tests start real servers and child processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
