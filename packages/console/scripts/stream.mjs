#!/usr/bin/env node
// The players page's demo stream: a short test pattern with a tone, H.264 + AAC, packaged as HLS
// (MPEG-TS segments and a media playlist) and as DASH (fMP4 segments, an MPD template), made by
// ffmpeg and written into dist/stream/ after the console's build; the steering server serves it
// under /console/players/stream/, one copy per pathway, with a multivariant playlist and an MPD
// it writes from the policy in force. The encode is cached under .stream/ (not in git), keyed by
// its parameters. Without ffmpeg the build goes on without a stream: the page then plays a
// stream the visitor names.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const STREAM = {
  seconds: 90,
  segmentSeconds: 2,
  fps: 15,
  width: 320,
  height: 180,
  videoKbps: 100,
  audioKbps: 32,
  videoCodec: 'avc1.4d401e',
  audioCodec: 'mp4a.40.2',
};

function hasFfmpeg() {
  try {
    execFileSync('ffmpeg', ['-hide_banner', '-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const key = createHash('sha256').update(JSON.stringify(STREAM)).digest('hex').slice(0, 16);
const cache = join(root, '.stream', key);
const out = join(root, 'dist', 'stream');

if (!existsSync(join(cache, 'complete'))) {
  if (!hasFfmpeg()) {
    console.error(
      'console: ffmpeg is not installed, so the players page has no demo stream (it plays a stream you name)',
    );
    process.exit(0);
  }
  for (const old of existsSync(join(root, '.stream')) ? readdirSync(join(root, '.stream')) : []) {
    if (old !== key) rmSync(join(root, '.stream', old), { recursive: true, force: true });
  }
  const tmp = `${cache}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'hls'), { recursive: true });
  mkdirSync(join(tmp, 'dash'), { recursive: true });
  const s = STREAM;
  const gop = s.fps * s.segmentSeconds;
  const ffmpeg = (args) =>
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], {
      stdio: 'inherit',
    });
  const source = join(tmp, 'source.mp4');
  ffmpeg([
    ...['-f', 'lavfi', '-i', `testsrc2=size=${s.width}x${s.height}:rate=${s.fps}`],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    ...['-t', String(s.seconds), '-map', '0:v', '-map', '1:a'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'main', '-level', '3.0'],
    ...['-pix_fmt', 'yuv420p', '-b:v', `${s.videoKbps}k`, '-maxrate', `${s.videoKbps}k`],
    ...['-bufsize', `${s.videoKbps * 2}k`, '-g', String(gop), '-keyint_min', String(gop)],
    ...['-sc_threshold', '0', '-c:a', 'aac', '-b:a', `${s.audioKbps}k`, '-ac', '2'],
    source,
  ]);
  ffmpeg([
    ...['-i', source, '-c', 'copy', '-f', 'hls', '-hls_time', String(s.segmentSeconds)],
    ...['-hls_playlist_type', 'vod', '-hls_segment_type', 'mpegts'],
    ...['-hls_segment_filename', join(tmp, 'hls', 'seg_%03d.ts')],
    join(tmp, 'hls', 'media.m3u8'),
  ]);
  ffmpeg([
    ...['-i', source, '-map', '0:v', '-map', '0:a', '-c', 'copy', '-f', 'dash'],
    ...['-seg_duration', String(s.segmentSeconds), '-use_template', '1', '-use_timeline', '0'],
    ...['-adaptation_sets', 'id=0,streams=v id=1,streams=a'],
    ...['-init_seg_name', 'init-$RepresentationID$.m4s'],
    ...['-media_seg_name', 'chunk-$RepresentationID$-$Number%05d$.m4s'],
    join(tmp, 'dash', 'manifest.mpd'),
  ]);
  rmSync(source);
  writeFileSync(
    join(tmp, 'stream.json'),
    `${JSON.stringify({ ...STREAM, bandwidth: (s.videoKbps + s.audioKbps) * 1000 * 2 }, null, 2)}\n`,
  );
  writeFileSync(join(tmp, 'complete'), `${new Date().toISOString()}\n`);
  rmSync(cache, { recursive: true, force: true });
  renameSync(tmp, cache);
}

if (!existsSync(join(root, 'dist'))) {
  console.error('console: no dist/ to put the stream in (run vite build first)');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
cpSync(cache, out, { recursive: true, filter: (src) => !src.endsWith('complete') });
console.log(`console: the players page's demo stream in dist/stream/ (${STREAM.seconds} s)`);
