import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The shared configuration, and a global setup that builds the bin the child-process tests run.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['test/global-setup.ts'] } }),
);
