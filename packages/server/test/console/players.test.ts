import { dashElement, hlsTag } from '@wai-steering/manifest';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleAssets } from '../../src/console/assets.js';
import { NO_STREAM, streamFile } from '../../src/console/players.js';
import { demoApp, text } from '../helpers/setup.js';

type Ctx = Awaited<ReturnType<typeof demoApp>>;
let ctx: Ctx | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const enc = new TextEncoder();
const file = (s: string | Uint8Array, type = 'application/octet-stream') => ({
  bytes: typeof s === 'string' ? enc.encode(s) : s,
  type,
});
const TEMPLATE = `<?xml version="1.0" encoding="utf-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static">
\t<ProgramInformation>
\t</ProgramInformation>
\t<Period id="0"></Period>
</MPD>
`;
const STREAM: ConsoleAssets = new Map([
  [
    'stream/stream.json',
    file(
      JSON.stringify({
        width: 320,
        height: 180,
        fps: 15,
        bandwidth: 264000,
        videoCodec: 'avc1.4d401e',
        audioCodec: 'mp4a.40.2',
      }),
    ),
  ],
  ['stream/hls/media.m3u8', file('#EXTM3U\n')],
  ['stream/hls/seg_000.ts', file(new Uint8Array([0x47, 1, 2]))],
  ['stream/dash/manifest.mpd', file(TEMPLATE)],
]);
const ORIGIN = 'http://127.0.0.1:8080';

describe("the players page's stream", () => {
  it('writes a multivariant playlist of the policy: a variant per pathway of the content description, and its steering tag', async () => {
    ctx = await demoApp();
    const policy = ctx.engine.policy;
    const f = streamFile(STREAM, policy, 'main.m3u8', ORIGIN)!;
    expect(f.status).toEqual(200);
    const lines = String(f.body).trim().split('\n');
    expect(lines).toContain(hlsTag(policy));
    const bases = policy.pathways.filter((p) => p.host === '').map((p) => p.id);
    expect(lines.filter((l) => l.startsWith('http'))).toEqual(
      bases.map((id) => `${ORIGIN}/console/players/stream/${id}/hls/media.m3u8`),
    );
    expect(
      lines
        .filter((l) => l.startsWith('#EXT-X-STREAM-INF:'))
        .map((l) => /PATHWAY-ID="([^"]+)"/.exec(l)![1]),
    ).toEqual(bases);
  });

  it('writes an MPD of the policy: a BaseURL per pathway with its serviceLocation, the initial one first, and its ContentSteering', async () => {
    ctx = await demoApp();
    for (const initial of [0, 1]) {
      const policy = { ...ctx.engine.policy, initial };
      const mpd = String(streamFile(STREAM, policy, 'main.mpd', ORIGIN)!.body);
      expect(mpd).toContain(dashElement(policy));
      expect(mpd).not.toContain('ProgramInformation');
      const bases = [...mpd.matchAll(/<BaseURL serviceLocation="([^"]+)">([^<]+)<\/BaseURL>/g)];
      const ids = policy.pathways.filter((p) => p.host === '').map((p) => p.id);
      const first = policy.pathways[initial]!.id;
      expect(bases.map((m) => [m[1], m[2]])).toEqual(
        [first, ...ids.filter((id) => id !== first)].map((id) => [
          id,
          `${ORIGIN}/console/players/stream/${id}/dash/`,
        ]),
      );
    }
  });

  it("serves the stream's files under each pathway of the policy, and nothing else", async () => {
    ctx = await demoApp();
    const policy = ctx.engine.policy;
    const clone = policy.pathways.find((p) => p.host !== '')!.id;
    for (const id of [...policy.pathways.map((p) => p.id), clone]) {
      const f = streamFile(STREAM, policy, `${id}/hls/seg_000.ts`, ORIGIN)!;
      expect({ status: f.status, type: f.type, body: [...(f.body as Uint8Array)] }).toEqual({
        status: 200,
        type: 'video/mp2t',
        body: [0x47, 1, 2],
      });
    }
    for (const rest of [
      'nope/hls/seg_000.ts',
      'cdn-a/hls/seg_999.ts',
      'cdn-a/x/seg_000.ts',
      '../stream.json',
      'cdn-a/hls/../../stream.json',
    ]) {
      expect(streamFile(STREAM, policy, rest, ORIGIN), rest).toBeUndefined();
    }
  });

  it('says so when the console was built without a stream', async () => {
    ctx = await demoApp();
    const f = streamFile(new Map(), ctx.engine.policy, 'main.m3u8', ORIGIN)!;
    expect(f.status).toEqual(404);
    // One line, and its advice is what works: the demo started again makes the stream (a
    // build is a cache hit that does not).
    expect(text(f.body)).toBe(`${NO_STREAM}\n`);
    expect(NO_STREAM).toMatch(
      /^this server has no demo stream: .*install ffmpeg, then start the demo again/,
    );
    expect(NO_STREAM).not.toMatch(/\brun `?pnpm build/);
  });
});
