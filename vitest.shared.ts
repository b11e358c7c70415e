import { defineConfig } from 'vitest/config';

// The test configuration every package shares. Each run also writes `test-results.json`, which
// `scripts/test-summary.mjs` adds up into the one closing line of the test command.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
