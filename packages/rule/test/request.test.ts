import { describe, expect, it } from 'vitest';
import { protocolOf, sessionOf } from '../src/request.js';

const S = '00112233445566778899aabbccddeeff';
const hex = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

describe('protocolOf', () => {
  it('reads DASH from any part whose decoded name begins with _DASH_', () => {
    expect(protocolOf('/steer?_HLS_pathway=a')).toBe('hls');
    expect(protocolOf('/steer?_DASH_pathway=a')).toBe('dash');
    expect(protocolOf('/steer?x=1&%5FDASH_throughput=5')).toBe('dash');
    expect(protocolOf('/steer?x=_DASH_')).toBe('hls');
    expect(protocolOf('/steer')).toBe('hls');
    expect(protocolOf('/steer#?_DASH_x=1')).toBe('hls');
    expect(protocolOf('http://h:1/steer?_DASH_pathway=a')).toBe('dash');
    expect(protocolOf(new TextEncoder().encode('/s?_DASH_x'))).toBe('dash');
  });
  it('skips a part with a bad % (§4.1)', () => {
    expect(protocolOf('/steer?%zz_DASH_=1')).toBe('hls');
    expect(protocolOf('/steer?_DASH_pathway=%zz')).toBe('hls');
    expect(protocolOf('/steer?_DASH_pathway=%zz&_DASH_x=1')).toBe('dash');
  });
  it('refuses a target that is neither a string nor bytes', () => {
    expect(() => protocolOf(5 as unknown as string)).toThrow(TypeError);
  });
});

describe('sessionOf', () => {
  it('reads the first wai_session part when it is 32 lowercase hex digits', () => {
    expect(hex(sessionOf(`/steer?a=1&wai_session=${S}`))).toBe(S);
    expect(hex(sessionOf(`/steer?wai_session=${S}#frag`))).toBe(S);
    expect(sessionOf(`/steer?wai_session=${S.toUpperCase()}`)).toBeUndefined();
    expect(sessionOf(`/steer?wai_session=${S}0`)).toBeUndefined();
    expect(sessionOf(`/steer?wai_session=bad&wai_session=${S}`)).toBeUndefined();
    expect(sessionOf(`/steer?wai_session&wai_session=${S}`)).toBeUndefined();
    expect(hex(sessionOf(`/steer?wai_sessionx=1&wai_session=${S}`))).toBe(S);
    expect(sessionOf('/steer')).toBeUndefined();
  });
  it('decodes names and values (§4.1)', () => {
    expect(hex(sessionOf(`/steer?wai%5Fsession=${S}`))).toBe(S);
    expect(hex(sessionOf(`/steer?wai_session=%30${S.slice(1)}`))).toBe(S);
    expect(hex(sessionOf(`/steer?wai_session=%zz&wai_session=${S}`))).toBe(S);
    expect(sessionOf(`/steer?é=1&wai_session=${S}`)).toBeDefined();
  });
});
