// The content descriptions of a run: the HLS multivariant playlist (one variant per base
// pathway, each with its PATHWAY-ID and an absolute URI on that pathway's host, and the policy's
// EXT-X-CONTENT-STEERING tag) and the DASH MPD (one BaseURL per base pathway with its
// @serviceLocation, and the policy's ContentSteering element).

import { MEDIA, type MediaSpec, variantBandwidth } from './media.js';

export interface BasePathway {
  readonly id: string;
  /** The pathway's origin, `http://host[:port]`. */
  readonly origin: string;
}

/** The multivariant playlist; `tag` is `hlsTag(policy)`. */
export function multivariantPlaylist(
  tag: string,
  pathways: readonly BasePathway[],
  spec: MediaSpec = MEDIA,
  media = 'media.m3u8',
): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-INDEPENDENT-SEGMENTS', tag];
  const bandwidth = variantBandwidth(spec);
  for (const p of pathways) {
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${bandwidth},AVERAGE-BANDWIDTH=${bandwidth / 2},` +
        `CODECS="${spec.videoCodec},${spec.audioCodec}",RESOLUTION=${spec.width}x${spec.height},` +
        `FRAME-RATE=${spec.fps}.000,PATHWAY-ID="${p.id}",STABLE-VARIANT-ID="v0"`,
      `${p.origin}/hls/${media}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The MPD: ffmpeg's, with its empty ProgramInformation and ServiceDescription dropped, and the
 * BaseURLs and `element` (`dashElement(policy)`) placed first in the MPD.
 */
export function mpd(template: string, element: string, pathways: readonly BasePathway[]): string {
  const cleaned = template
    .replace(/\s*<ProgramInformation>\s*<\/ProgramInformation>/, '')
    .replace(/\s*<ServiceDescription id="0">\s*<\/ServiceDescription>/, '');
  const open = cleaned.indexOf('>', cleaned.indexOf('<MPD')) + 1;
  if (open === 0) throw new Error('no MPD element in the template');
  const inserted = [
    ...pathways.map((p) => `\t<BaseURL serviceLocation="${p.id}">${p.origin}/dash/</BaseURL>`),
    `\t${element}`,
  ].join('\n');
  return `${cleaned.slice(0, open)}\n${inserted}${cleaned.slice(open)}`;
}

/** How far into the stream a live presentation starts, in segments, and its window. */
export const LIVE_HEAD_SEGMENTS = 6;
const LIVE_WINDOW_SEGMENTS = 6;

/**
 * A live media playlist over the segments of a VOD one (`seg_NNN.ts`, with `durations`): at
 * `startMs` the first LIVE_HEAD_SEGMENTS are out, then one more each segment duration; it lists
 * the last LIVE_WINDOW_SEGMENTS. A function: each request gets the playlist of its moment.
 */
export function livePlaylist(durations: readonly number[], startMs: number): () => string {
  const target = Math.ceil(Math.max(...durations));
  const each = durations[0]!;
  return () => {
    const out = LIVE_HEAD_SEGMENTS + Math.floor((Date.now() - startMs) / (each * 1000));
    const last = Math.min(durations.length, out) - 1;
    const first = Math.max(0, last - LIVE_WINDOW_SEGMENTS + 1);
    const lines = [
      '#EXTM3U',
      '#EXT-X-VERSION:6',
      `#EXT-X-TARGETDURATION:${target}`,
      `#EXT-X-MEDIA-SEQUENCE:${first}`,
    ];
    for (let i = first; i <= last; i++) {
      lines.push(`#EXTINF:${durations[i]!.toFixed(6)},`, `seg_${String(i).padStart(3, '0')}.ts`);
    }
    return `${lines.join('\n')}\n`;
  };
}

/**
 * A dynamic MPD over ffmpeg's static one (`mpd(…)`'s template): its segments are available from
 * `startMs` − LIVE_HEAD_SEGMENTS segments on, and it asks to be reloaded every 2 s
 * (`minimumUpdatePeriod`): each reload is a live manifest update.
 */
export function liveMpd(
  template: string,
  element: string,
  pathways: readonly BasePathway[],
  startMs: number,
  segmentSeconds: number,
): () => string {
  const ast = new Date(startMs - LIVE_HEAD_SEGMENTS * segmentSeconds * 1000).toISOString();
  const dynamic = template
    .replace('type="static"', 'type="dynamic"')
    .replace(/\s*mediaPresentationDuration="[^"]*"/, '')
    .replace(
      'type="dynamic"',
      `type="dynamic"\n\tavailabilityStartTime="${ast}"\n\tpublishTime="${ast}"\n\tminimumUpdatePeriod="PT2S"\n\ttimeShiftBufferDepth="PT6S"\n\tsuggestedPresentationDelay="PT3S"`,
    );
  const doc = mpd(dynamic, element, pathways);
  // Each reload is published anew, as a live packager's would be.
  return () => doc.replace(`publishTime="${ast}"`, `publishTime="${new Date().toISOString()}"`);
}

/**
 * The MPD's `ContentSteering` element naming `uri` in place of the policy's `server_uri`: a
 * session's `RELOAD-URI`, for an MPD written per viewer (docs/players.md, video.js on DASH).
 */
export function sessionElement(element: string, uri: string): string {
  const open = element.indexOf('>') + 1;
  const close = element.lastIndexOf('</ContentSteering>');
  if (open === 0 || close < open) throw new TypeError('not a ContentSteering element');
  return `${element.slice(0, open)}${uri.replaceAll('&', '&amp;')}${element.slice(close)}`;
}
