// The content descriptions of a run: the HLS multivariant playlist (one variant per base
// pathway, each with its PATHWAY-ID and an absolute URI on that pathway's host, and the policy's
// EXT-X-CONTENT-STEERING tag) and the DASH MPD (one BaseURL per base pathway with its
// @serviceLocation, and the policy's ContentSteering element).

import { MEDIA, VARIANT_BANDWIDTH } from './media.js';

export interface BasePathway {
  readonly id: string;
  /** The pathway's origin, `http://host[:port]`. */
  readonly origin: string;
}

/** The multivariant playlist; `tag` is `hlsTag(policy)`. */
export function multivariantPlaylist(tag: string, pathways: readonly BasePathway[]): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-INDEPENDENT-SEGMENTS', tag];
  for (const p of pathways) {
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${VARIANT_BANDWIDTH},AVERAGE-BANDWIDTH=${VARIANT_BANDWIDTH / 2},` +
        `CODECS="${MEDIA.videoCodec},${MEDIA.audioCodec}",RESOLUTION=${MEDIA.width}x${MEDIA.height},` +
        `FRAME-RATE=${MEDIA.fps}.000,PATHWAY-ID="${p.id}",STABLE-VARIANT-ID="v0"`,
      `${p.origin}/hls/media.m3u8`,
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
