import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/**
 * The players the players page offers, each the minified browser bundle of the version the
 * project pins (package.json): copied into assets/ under a content-hashed name, and listed by
 * the module `virtual:wai-players` with its URL.
 */
const PLAYERS = [
  { kind: 'hls.js', pkg: 'hls.js', file: 'dist/hls.min.js', licence: 'LICENSE' },
  {
    kind: 'dash.js',
    pkg: 'dashjs',
    file: 'dist/modern/umd/dash.all.min.js',
    licence: 'LICENSE.md',
  },
  {
    kind: 'shaka-player',
    pkg: 'shaka-player',
    file: 'dist/shaka-player.compiled.js',
    licence: 'LICENSE',
  },
  { kind: 'video.js', pkg: 'video.js', file: 'dist/video.min.js', licence: 'LICENSE' },
] as const;

function playerBundles(): Plugin {
  const id = 'virtual:wai-players';
  const resolved = `\0${id}`;
  return {
    name: 'wai-player-bundles',
    resolveId: (source) => (source === id ? resolved : undefined),
    load(source) {
      if (source !== resolved) return undefined;
      const entries = PLAYERS.map((p) => {
        // The package as pnpm links it for this one (some forbid resolving package.json).
        const dir = join(import.meta.dirname, 'node_modules', p.pkg);
        const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
          version: string;
        };
        // Each player's licence goes with its bundle.
        if (this.meta.watchMode !== true) {
          this.emitFile({
            type: 'asset',
            fileName: `licences/${p.pkg}-${version}.txt`,
            source: readFileSync(join(dir, p.licence)),
          });
        }
        const url =
          this.meta.watchMode === true
            ? `/@fs${join(dir, p.file)}`
            : `import.meta.ROLLUP_FILE_URL_${this.emitFile({
                type: 'asset',
                name: `${p.kind}-${version}.js`,
                source: readFileSync(join(dir, p.file)),
              })}`;
        const quoted = url.startsWith('import.meta') ? url : JSON.stringify(url);
        return `{ kind: ${JSON.stringify(p.kind)}, version: ${JSON.stringify(version)}, url: ${quoted} }`;
      });
      return `export default [${entries.join(', ')}];`;
    },
  };
}

// Three pages, one build: the operator console (index.html, served by the steering server at
// /console/), the verifier (verify.html, at /console/verify, or hosted anywhere as static files)
// and the players page (players.html, at /console/players). Relative asset URLs (`base: './'`)
// so that the same files work under /console/ and from any other directory; content-hashed
// names under assets/ so that they can be cached as immutable. The players page's demo stream
// is made by scripts/stream.mjs after the build (ffmpeg), into dist/stream/.
export default defineConfig({
  base: './',
  plugins: [playerBundles()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        console: resolve(import.meta.dirname, 'index.html'),
        verify: resolve(import.meta.dirname, 'verify.html'),
        energy: resolve(import.meta.dirname, 'energy.html'),
        players: resolve(import.meta.dirname, 'players.html'),
        'spec-map': resolve(import.meta.dirname, 'spec-map.html'),
      },
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});
