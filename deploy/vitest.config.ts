import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../vitest.shared.ts';

// The shared configuration; the deployment's test installs real services (PostgreSQL, HAProxy,
// nginx, the servers and agents) and drives Chromium, so it is given the time that takes.
export default mergeConfig(
  shared,
  defineConfig({ test: { testTimeout: 300_000, hookTimeout: 600_000 } }),
);
