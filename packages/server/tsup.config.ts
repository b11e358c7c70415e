import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testkit.ts', 'src/readable.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'node',
  external: [/^node:/, 'better-sqlite3'],
});
