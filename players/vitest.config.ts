import { defineConfig } from 'vitest/config';

// One file at a time: each drives a real Chromium playing real time, and two cores do not
// leave room for two of them.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./harness/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
