import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The shared configuration; the release's test builds the artefacts (npm installs, dpkg-deb,
// lintian, a single executable) and installs each, so it is given the time that takes.
export default mergeConfig(
  shared,
  defineConfig({ test: { testTimeout: 300_000, hookTimeout: 900_000 } }),
);
