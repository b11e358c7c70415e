/**
 * The players page's stream (`/console/players`, docs/console.md): the console's demo stream
 * (`dist/stream/` of `@wai-steering/console`, made by ffmpeg at its build) served under
 * `/console/players/stream/`, once per pathway of the policy in force, with the content
 * descriptions that name them: a multivariant playlist (`main.m3u8`: the variant once per
 * pathway of the content description, its `PATHWAY-ID`, and the policy's
 * `EXT-X-CONTENT-STEERING`, §8.2) and an MPD (`main.mpd`: a `BaseURL` per pathway with its
 * `serviceLocation`, and the policy's `ContentSteering`, §8.3). A pathway here is a path,
 * `/console/players/stream/<id>/`, on this server; a clone's is its base's with the clone's
 * `HOST`, which a player then asks for (and which reaches this server only where that host
 * does).
 */

import { readStrictJson } from '@wai-steering/config-text';
import { dashElement, hlsTag } from '@wai-steering/manifest';
import { NOT_A_CLONE, type PolicyFields } from '@wai-steering/wire';
import type { ConsoleAssets } from './assets.js';

/** What `stream.json` of the console's build says of the stream. */
interface StreamInfo {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly bandwidth: number;
  readonly videoCodec: string;
  readonly audioCodec: string;
}

export interface StreamFile {
  readonly status: number;
  readonly type: string;
  readonly body: string | Uint8Array;
}

const TYPES: Readonly<Record<string, string>> = {
  m3u8: 'application/vnd.apple.mpegurl',
  mpd: 'application/dash+xml',
  ts: 'video/mp2t',
  m4s: 'video/iso.segment',
};

/**
 * The 404 of a console built without ffmpeg. A checkout's demo makes the stream at its start when
 * ffmpeg is there (a build is a cache hit that would not); an installed release cannot.
 */
export const NO_STREAM =
  'this server has no demo stream: its console was built without ffmpeg (from a checkout: install ffmpeg, then start the demo again, which makes the stream at its start; `pnpm build` alone does not); the page plays a stream you name';

function streamInfo(assets: ConsoleAssets): StreamInfo | undefined {
  const file = assets.get('stream/stream.json');
  if (file === undefined) return undefined;
  const read = readStrictJson(new TextDecoder().decode(file.bytes));
  return read.ok ? (read.value as StreamInfo) : undefined;
}

/** The pathways of the content description (§3.2: those that are not clones). */
function basePathways(policy: PolicyFields): string[] {
  return policy.pathways.filter((p) => p.base === NOT_A_CLONE).map((p) => p.id);
}

function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * A file of `/console/players/stream/<rest>`, for a page reached as `origin` (the URIs the
 * content descriptions write are absolute: dash.js builds a clone's URL from an absolute one).
 */
export function streamFile(
  assets: ConsoleAssets,
  policy: PolicyFields,
  rest: string,
  origin: string,
): StreamFile | undefined {
  const info = streamInfo(assets);
  if (info === undefined)
    return { status: 404, type: 'text/plain; charset=utf-8', body: `${NO_STREAM}\n` };
  const base = `${origin}/console/players/stream`;
  const ids = basePathways(policy);
  if (rest === 'main.m3u8') {
    const lines = ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-INDEPENDENT-SEGMENTS', hlsTag(policy)];
    for (const id of ids) {
      lines.push(
        `#EXT-X-STREAM-INF:BANDWIDTH=${info.bandwidth},CODECS="${info.videoCodec},${info.audioCodec}",` +
          `RESOLUTION=${info.width}x${info.height},FRAME-RATE=${info.fps}.000,PATHWAY-ID="${id}",STABLE-VARIANT-ID="v0"`,
        `${base}/${encodeURIComponent(id)}/hls/media.m3u8`,
      );
    }
    return { status: 200, type: TYPES.m3u8!, body: `${lines.join('\n')}\n` };
  }
  if (rest === 'main.mpd') {
    const template = assets.get('stream/dash/manifest.mpd');
    if (template === undefined) return undefined;
    const mpd = new TextDecoder()
      .decode(template.bytes)
      .replace(/\s*<ProgramInformation>\s*<\/ProgramInformation>/, '')
      .replace(/\s*<ServiceDescription id="0">\s*<\/ServiceDescription>/, '');
    const open = mpd.indexOf('>', mpd.indexOf('<MPD')) + 1;
    if (open === 0) return undefined;
    // The initial pathway's BaseURL first: a player that starts a media type on the first
    // BaseURL and not on the default service location (VHS 3.17 its audio) then starts it where
    // the element says, and the first steering answer moves nothing (docs/players.md).
    const initial = policy.pathways[policy.initial]?.id;
    const ordered = [...ids.filter((id) => id === initial), ...ids.filter((id) => id !== initial)];
    const inserted = [
      ...ordered.map(
        (id) =>
          `\t<BaseURL serviceLocation="${xmlEscape(id)}">${xmlEscape(`${base}/${encodeURIComponent(id)}/dash/`)}</BaseURL>`,
      ),
      `\t${dashElement(policy)}`,
    ].join('\n');
    return {
      status: 200,
      type: TYPES.mpd!,
      body: `${mpd.slice(0, open)}\n${inserted}${mpd.slice(open)}`,
    };
  }
  // <pathway>/<hls|dash>/<file>: any pathway of the policy, clones included (a clone's HOST may
  // reach this server).
  const m = /^([^/]+)\/(hls|dash)\/([A-Za-z0-9._-]+)$/.exec(rest);
  if (m === null) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
  if (!policy.pathways.some((p) => p.id === id)) return undefined;
  const file = assets.get(`stream/${m[2]}/${m[3]}`);
  const ext = m[3]!.slice(m[3]!.lastIndexOf('.') + 1);
  if (file === undefined || TYPES[ext] === undefined) return undefined;
  return { status: 200, type: TYPES[ext]!, body: file.bytes };
}
