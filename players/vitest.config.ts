import { defineConfig } from 'vitest/config';

// One file at a time: each drives a real Chromium playing real time, and two cores do not
// leave room for two of them.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./harness/global-setup.ts'],
    fileParallelism: false,
    // The behaviour matrix runs its scenarios in parallel pages, this many at once.
    maxConcurrency: 8,
    // Guards against a hang, not deadlines: every wait of the harness ends on what it waits for
    // and has its own guard; a busy machine's two cores take minutes where an idle one takes
    // seconds.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    teardownTimeout: 30_000,
    // One file at a time, in this order; and the totals for scripts/test-summary.mjs.
    sequence: { shuffle: false },
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
