import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts', 'src/index.ts'],
  format: ['esm'],
  // @wai-steering/config-text is private: bundled (code and types), never a dependency.
  noExternal: ['@wai-steering/config-text'],
  dts: { resolve: ['@wai-steering/config-text'] },
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
});
