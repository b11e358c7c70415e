import { defineConfig } from 'vitest/config';

// The test configuration every package shares, in two projects: `unit` (the package's own code,
// in process) and `integration` (`test/integration/`: suites that start real infrastructure —
// PostgreSQL, HAProxy, nginx, a Prometheus exporter, Chromium). `vitest run` runs both; `vitest
// run --project unit` the first alone. Each run also writes `test-results.json`, which
// `scripts/test-summary.mjs` adds up into the one closing line of the test command.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    passWithNoTests: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**'],
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'] },
      },
    ],
  },
});
