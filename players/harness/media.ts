// The test stream: an H.264 + AAC test pattern made by ffmpeg, packaged once as HLS (MPEG-TS
// segments and a media playlist) and as DASH (fMP4 segments and an MPD template), cached under
// players/.media/<key>/ so that later runs reuse it. The multivariant playlist and the MPD that
// name the pathways and the steering server are written per run (./documents.ts), since they
// hold the run's addresses.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A stream's parameters; every one of them is in its cache key. */
export interface MediaSpec {
  readonly seconds: number;
  readonly segmentSeconds: number;
  readonly fps: number;
  readonly width: number;
  readonly height: number;
  readonly videoKbps: number;
  readonly audioKbps: number;
  readonly videoCodec: string;
  readonly audioCodec: string;
}

/** The end-to-end runs' stream. */
export const MEDIA: MediaSpec = {
  seconds: 60,
  segmentSeconds: 2,
  fps: 25,
  width: 320,
  height: 180,
  videoKbps: 200,
  audioKbps: 64,
  /** Main profile, level 3.0: what the CODECS attribute below names. */
  videoCodec: 'avc1.4d401e',
  audioCodec: 'mp4a.40.2',
};

/**
 * The behaviour matrix's stream: 1 s segments, so that a scenario sees a segment a second, and
 * fewer frames and bits, since several play at once.
 */
export const MATRIX_MEDIA: MediaSpec = {
  ...MEDIA,
  // Long enough for the recovery run, which steers through four phases: on a busy machine those
  // took 170 s of a 180 s stream, and a player that reaches the end stops steering (hls.js).
  seconds: 600,
  segmentSeconds: 1,
  fps: 10,
  videoKbps: 100,
  audioKbps: 32,
};

/** The bandwidth a multivariant playlist states for the variant (bits per second, peak-ish). */
export function variantBandwidth(spec: MediaSpec): number {
  return (spec.videoKbps + spec.audioKbps) * 1000 * 2;
}

export const VARIANT_BANDWIDTH = variantBandwidth(MEDIA);

export interface Media {
  /** The folder holding `hls/` and `dash/`. */
  readonly dir: string;
  /** The MPD as ffmpeg wrote it, without BaseURL or ContentSteering. */
  readonly mpdTemplate: string;
  /** The media playlist's segment count. */
  readonly segments: number;
  /** The media playlist's `#EXTINF` durations, in order. */
  readonly durations: readonly number[];
  readonly spec: MediaSpec;
}

const here = dirname(fileURLToPath(import.meta.url));
export const MEDIA_ROOT = join(here, '..', '.media');

function cacheKey(spec: MediaSpec): string {
  return createHash('sha256')
    .update(JSON.stringify(spec === MEDIA ? { MEDIA, v: 1 } : { spec, v: 1 }))
    .digest('hex')
    .slice(0, 16);
}

/** The cached stream, made by ffmpeg when it is not there yet. */
export async function ensureMedia(spec: MediaSpec = MEDIA): Promise<Media> {
  const key = cacheKey(spec);
  const dir = join(MEDIA_ROOT, key);
  if (!existsSync(join(dir, 'complete'))) {
    // Streams of other parameters (and unfinished ones) are not used again.
    const keep = new Set([cacheKey(MEDIA), cacheKey(MATRIX_MEDIA)]);
    for (const old of existsSync(MEDIA_ROOT) ? readdirSync(MEDIA_ROOT) : []) {
      if (!keep.has(old)) rmSync(join(MEDIA_ROOT, old), { recursive: true, force: true });
    }
    await makeMedia(dir, spec);
  }
  return readMedia(dir, spec);
}

function readMedia(dir: string, spec: MediaSpec): Media {
  const mpdTemplate = readFileSync(join(dir, 'dash', 'manifest.mpd'), 'utf8');
  const playlist = readFileSync(join(dir, 'hls', 'media.m3u8'), 'utf8');
  const segments = playlist.split('\n').filter((l) => l.endsWith('.ts')).length;
  const durations = [...playlist.matchAll(/^#EXTINF:([0-9.]+),/gm)].map((m) => Number(m[1]));
  return { dir, mpdTemplate, segments, durations, spec };
}

async function makeMedia(dir: string, MEDIA: MediaSpec): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'hls'), { recursive: true });
  mkdirSync(join(tmp, 'dash'), { recursive: true });
  const gop = MEDIA.fps * MEDIA.segmentSeconds;
  const source = join(tmp, 'source.mp4');
  const ffmpeg = (args: string[]) =>
    run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], {
      maxBuffer: 16 << 20,
    });
  // One encode; both packagings copy it, so HLS and DASH carry the same frames.
  await ffmpeg([
    ...['-f', 'lavfi', '-i', `testsrc2=size=${MEDIA.width}x${MEDIA.height}:rate=${MEDIA.fps}`],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    ...['-t', String(MEDIA.seconds), '-map', '0:v', '-map', '1:a'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'main', '-level', '3.0'],
    ...['-pix_fmt', 'yuv420p', '-b:v', `${MEDIA.videoKbps}k`, '-maxrate', `${MEDIA.videoKbps}k`],
    ...['-bufsize', `${MEDIA.videoKbps * 2}k`, '-g', String(gop), '-keyint_min', String(gop)],
    ...['-sc_threshold', '0', '-c:a', 'aac', '-b:a', `${MEDIA.audioKbps}k`, '-ac', '2'],
    source,
  ]);
  await ffmpeg([
    ...['-i', source, '-c', 'copy', '-f', 'hls', '-hls_time', String(MEDIA.segmentSeconds)],
    ...['-hls_playlist_type', 'vod', '-hls_segment_type', 'mpegts'],
    ...['-hls_segment_filename', join(tmp, 'hls', 'seg_%03d.ts')],
    join(tmp, 'hls', 'media.m3u8'),
  ]);
  await ffmpeg([
    ...['-i', source, '-map', '0:v', '-map', '0:a', '-c', 'copy', '-f', 'dash'],
    ...['-seg_duration', String(MEDIA.segmentSeconds), '-use_template', '1', '-use_timeline', '0'],
    ...['-adaptation_sets', 'id=0,streams=v id=1,streams=a'],
    ...['-init_seg_name', 'init-$RepresentationID$.m4s'],
    ...['-media_seg_name', 'chunk-$RepresentationID$-$Number%05d$.m4s'],
    join(tmp, 'dash', 'manifest.mpd'),
  ]);
  rmSync(source);
  writeFileSync(join(tmp, 'complete'), `${new Date().toISOString()}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}
