// The test's own small player harness: a short HLS test stream made by ffmpeg, a multivariant
// playlist naming the deployment's two pathways and its steering server, a page that plays it
// with hls.js (served from this package's node_modules), and Debian's Chromium to open it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const HLS_JS = join(here, '..', '..', 'node_modules', 'hls.js', 'dist', 'hls.min.js');

/**
 * ffmpeg's arguments for 24 s of an H.264 + AAC test pattern in 2-second MPEG-TS segments, into
 * `dir/hls/` (docs/deploy.md gives the same command).
 */
export function streamArgs(dir: string): string[] {
  return [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '24'],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'veryfast'],
    ...['-profile:v', 'main', '-level', '3.0', '-pix_fmt', 'yuv420p', '-b:v', '200k'],
    ...['-g', '50', '-keyint_min', '50', '-sc_threshold', '0', '-c:a', 'aac', '-b:a', '64k'],
    ...['-f', 'hls', '-hls_time', '2', '-hls_playlist_type', 'vod'],
    ...['-hls_segment_filename', join(dir, 'hls', 'seg_%03d.ts')],
    join(dir, 'hls', 'media.m3u8'),
  ];
}

/** The stream of {@link streamArgs}, made into `dir/hls/`. */
export async function makeStream(dir: string): Promise<void> {
  mkdirSync(join(dir, 'hls'), { recursive: true });
  await run('ffmpeg', streamArgs(dir), { maxBuffer: 16 << 20 });
}

/** The multivariant playlist: the policy's steering tag and one variant per pathway. */
export function multivariant(tag: string, pathways: readonly { id: string; origin: string }[]) {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-INDEPENDENT-SEGMENTS', tag];
  for (const p of pathways) {
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=528000,CODECS="avc1.4d401e,mp4a.40.2",RESOLUTION=320x180,PATHWAY-ID="${p.id}",STABLE-VARIANT-ID="v0"`,
      `${p.origin}/hls/media.m3u8`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>hls.js</title></head>
<body><video id="video" muted playsinline></video>
<script src="/hls.js"></script>
<script>
  window.__events = [];
  const push = (type, data) => window.__events.push({ type, ...data });
  const hls = new Hls({ maxBufferLength: 4, maxMaxBufferLength: 6, startLevel: 0 });
  hls.on(Hls.Events.STEERING_MANIFEST_LOADED, (_e, d) =>
    push('steering', { url: d.url, manifest: d.steeringManifest }));
  hls.on(Hls.Events.FRAG_LOADING, (_e, d) => push('fragment', { url: d.frag.url }));
  hls.on(Hls.Events.ERROR, (_e, d) => push('error', { details: d.details, fatal: d.fatal }));
  const video = document.getElementById('video');
  hls.attachMedia(video);
  hls.loadSource(new URLSearchParams(location.search).get('src'));
  video.play().catch((e) => push('error', { details: String(e), fatal: false }));
</script></body></html>
`;

/** A page server for the player (any free port on 127.0.0.1). */
export async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const hlsJs = readFileSync(HLS_JS);
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/hls.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(hlsJs);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A page event the player recorded. */
export interface PlayerEvent {
  readonly type: 'steering' | 'fragment' | 'error';
  readonly url?: string;
  readonly manifest?: Record<string, unknown>;
  readonly details?: string;
  readonly fatal?: boolean;
}

/** Debian's Chromium with the flags this machine needs (as players/harness/browser.ts). */
export async function openPlayer(url: string) {
  const profile = mkdtempSync(join(tmpdir(), 'wai-deploy-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--autoplay-policy=no-user-gesture-required',
    ],
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url);
  return {
    events: () => page.evaluate(() => (window as unknown as { __events: PlayerEvent[] }).__events),
    currentTime: () => page.evaluate(() => document.querySelector('video')!.currentTime),
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
