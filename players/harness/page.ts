// The test's own origin: a page per player, with the player's bundle served from node_modules
// (no CDN). The page records what the player tells it in `window.__events`; the tests read that
// with `page.evaluate`.

import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENT_TYPES, close, listen } from './http.js';

const modules = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');

/** The player bundles, by the path the pages load them from. */
export const BUNDLES: Readonly<Record<string, string>> = {
  '/lib/hls.js': join(modules, 'hls.js', 'dist', 'hls.js'),
  '/lib/dash.js': join(modules, 'dashjs', 'dist', 'modern', 'umd', 'dash.all.debug.js'),
  '/lib/shaka.js': join(modules, 'shaka-player', 'dist', 'shaka-player.compiled.debug.js'),
  '/lib/video.js': join(modules, 'video.js', 'dist', 'video.js'),
  '/lib/video.core.js': join(modules, 'video.js', 'dist', 'alt', 'video.core.js'),
};

export type PlayerName = 'hls.js' | 'dash.js' | 'shaka-player' | 'video.js';

export interface PageServer {
  readonly origin: string;
  /** The page of a player. */
  url(player: PlayerName): string;
  close(): Promise<void>;
}

const PAGE_SCRIPT: Readonly<Record<PlayerName, string>> = {
  'hls.js': '/lib/hls.js',
  'dash.js': '/lib/dash.js',
  'shaka-player': '/lib/shaka.js',
  'video.js': '/lib/video.js',
};

export interface PageOptions {
  /**
   * video.js's page loads video.js without its engine (`video.core.js`) and then this file as
   * VHS (`@videojs/http-streaming`'s UMD bundle, which registers itself): a copy of VHS, patched
   * or not (players/test/vhs.test.ts).
   */
  readonly vhs?: string;
}

function html(player: PlayerName, vhs: boolean): string {
  const scripts =
    player === 'video.js' && vhs ? ['/lib/video.core.js', '/lib/vhs.js'] : [PAGE_SCRIPT[player]];
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${player}</title></head>
<body>
<video id="video" muted playsinline style="width:320px;height:180px"></video>
<script>
  window.__events = [];
  window.__t0 = performance.now();
  window.__push = (type, data) => window.__events.push({ type, at: Math.round(performance.now() - window.__t0), ...data });
  window.addEventListener('error', (e) => window.__push('page-error', { message: String(e.message) }));
  window.addEventListener('unhandledrejection', (e) => window.__push('page-error', { message: 'unhandled rejection: ' + String(e.reason && (e.reason.stack || e.reason.message) || e.reason) }));
  const v = document.getElementById('video');
  for (const name of ['playing', 'waiting', 'ended', 'error', 'stalled']) {
    v.addEventListener(name, () => window.__push('video', { name, time: v.currentTime, error: v.error && v.error.message }));
  }
</script>
${scripts.map((src) => `<script src="${src}"></script>`).join('\n')}
</body></html>
`;
}

/** Starts the page server on 127.0.0.1 (any free port). */
export async function startPageServer(options: PageOptions = {}): Promise<PageServer> {
  const bundles: Record<string, string> = { ...BUNDLES };
  if (options.vhs !== undefined) bundles['/lib/vhs.js'] = options.vhs;
  for (const file of Object.values(bundles)) {
    if (!existsSync(file)) throw new Error(`player bundle missing: ${file}`);
  }
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const bundle = bundles[path];
    if (bundle !== undefined) {
      res.writeHead(200, { 'Content-Type': CONTENT_TYPES[extname(bundle)] ?? 'text/javascript' });
      createReadStream(bundle).pipe(res);
      return;
    }
    const player = decodeURIComponent(path.slice(1)) as PlayerName;
    if (player in PAGE_SCRIPT) {
      res
        .writeHead(200, { 'Content-Type': CONTENT_TYPES['.html']! })
        .end(html(player, options.vhs !== undefined));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  });
  const port = await listen(server, '127.0.0.1', 0);
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (player) => `${origin}/${encodeURIComponent(player)}`,
    close: () => close(server),
  };
}
