import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts', 'src/worker.ts'],
  format: ['esm'],
  // @wai-steering/config-text is private: bundled (code and types), never a dependency.
  noExternal: ['@wai-steering/config-text'],
  dts: { entry: ['src/index.ts', 'src/node.ts'], resolve: ['@wai-steering/config-text'] },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: [/^node:/],
});
