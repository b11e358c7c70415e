import { describe, expect, it } from 'vitest';
import { clonePrefixes, describeHls, isSegment, pathwayOf } from '../src/players/describe.js';

const PLAYLIST = `#EXTM3U
#EXT-X-VERSION:6
#EXT-X-CONTENT-STEERING:SERVER-URI="/steer?room=r",PATHWAY-ID="cdn-b"
#EXT-X-STREAM-INF:BANDWIDTH=264000,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-a"
http://a.example:8080/stream/cdn-a/hls/media.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=264000,CODECS="avc1.4d401e,mp4a.40.2",PATHWAY-ID="cdn-b"
cdn-b/hls/media.m3u8
`;

describe('the players page reads a content description', () => {
  it('finds the HLS pathways, the steering server and the initial pathway, URIs resolved', () => {
    expect(describeHls(PLAYLIST, 'http://b.example/stream/main.m3u8')).toEqual({
      protocol: 'hls',
      steering: 'http://b.example/steer?room=r',
      initial: 'cdn-b',
      pathways: [
        { id: 'cdn-a', prefix: 'http://a.example:8080/stream/cdn-a/hls/' },
        { id: 'cdn-b', prefix: 'http://b.example/stream/cdn-b/hls/' },
      ],
    });
    // No tag: no steering server; a variant without PATHWAY-ID is pathway ".".
    const plain = describeHls(
      '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv/m.m3u8\n',
      'http://h/x.m3u8',
    );
    expect(plain).toEqual({
      protocol: 'hls',
      steering: null,
      initial: null,
      pathways: [{ id: '.', prefix: 'http://h/v/' }],
    });
  });

  it("makes a clone's prefix from its base's with HOST (the port kept) and PARAMS", () => {
    const base = [{ id: 'cdn-b', prefix: 'http://b.example:8080/s/cdn-b/hls/' }];
    expect(
      clonePrefixes(base, [
        { 'BASE-ID': 'cdn-b', ID: 'c1', 'URI-REPLACEMENT': { HOST: 'east.example' } },
        { 'BASE-ID': 'cdn-b', ID: 'c2', 'URI-REPLACEMENT': { PARAMS: { r: 'x' } } },
        { 'BASE-ID': 'nope', ID: 'c3', 'URI-REPLACEMENT': { HOST: 'h' } },
        // A HOST that is not a host (a scheme in it) leaves the URL unchanged: not a clone here.
        { 'BASE-ID': 'cdn-b', ID: 'c4', 'URI-REPLACEMENT': { HOST: 'http://x' } },
      ]),
    ).toEqual([
      { id: 'c1', prefix: 'http://east.example:8080/s/cdn-b/hls/' },
      { id: 'c2', prefix: 'http://b.example:8080/s/cdn-b/hls/', params: { r: 'x' } },
    ]);
  });

  it('says which pathway a URL is on: the longest prefix, a PARAMS clone when it carries them', () => {
    const prefixes = [
      { id: 'cdn-a', prefix: 'http://h/s/cdn-a/' },
      { id: 'cdn-b', prefix: 'http://h/s/cdn-b/' },
      { id: 'clone', prefix: 'http://h/s/cdn-b/', params: { r: 'x' } },
      { id: 'root', prefix: 'http://h/s/' },
    ];
    expect(pathwayOf('http://h/s/cdn-a/seg_1.ts', prefixes)).toEqual('cdn-a');
    expect(pathwayOf('http://h/s/cdn-b/seg_1.ts', prefixes)).toEqual('cdn-b');
    expect(pathwayOf('http://h/s/cdn-b/seg_1.ts?r=x', prefixes)).toEqual('clone');
    expect(pathwayOf('http://h/s/other/seg_1.ts', prefixes)).toEqual('root');
    expect(pathwayOf('http://elsewhere/seg_1.ts', prefixes)).toEqual(null);
    expect(pathwayOf('not a url', prefixes)).toEqual(null);
  });

  it('tells media segments from playlists, MPDs and init segments', () => {
    expect(
      [
        'http://h/a/seg_001.ts',
        'http://h/a/chunk-0-00001.m4s?x=1',
        'http://h/a/init-0.m4s',
        'http://h/a/media.m3u8',
        'http://h/a/main.mpd',
        'nope',
      ].map(isSegment),
    ).toEqual([true, true, false, false, false, false]);
  });
});
