import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// Two pages, one build: the operator console (index.html, served by the steering server at
// /console/) and the verifier (verify.html, at /console/verify, or hosted anywhere as static
// files). Relative asset URLs (`base: './'`) so that the same files work under /console/ and
// from any other directory; content-hashed names under assets/ so that they can be cached as
// immutable.
export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        console: resolve(import.meta.dirname, 'index.html'),
        verify: resolve(import.meta.dirname, 'verify.html'),
      },
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});
