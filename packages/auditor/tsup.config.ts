import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts', 'src/worker.ts'],
  format: ['esm'],
  dts: { entry: ['src/index.ts', 'src/node.ts'] },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: [/^node:/],
});
