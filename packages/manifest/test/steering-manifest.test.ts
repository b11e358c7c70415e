import { describe, expect, it } from 'vitest';
import { decisionUri, STEERING_MEDIA_TYPE, writeManifest } from '../src/index.js';
import { DIGEST, DIGEST_HEX, policyOf, SESSION, SESSION_HEX } from './helpers/fixtures.js';

const decision = (priority: number[], ttl = 300) => ({ session: SESSION, ttl, priority });
const TAIL = `"science.transaction.wai-decision":"https://steer.example/v1/decision/${DIGEST_HEX}"}`;
const RELOAD = `https://steer.example/v1/steer?wai_session=${SESSION_HEX}`;

describe('§8.1 the steering manifest', () => {
  it('no clone: no PATHWAY-CLONES member; no trailing newline', () => {
    const policy = policyOf([{ id: 'cdn-a' }, { id: 'cdn-b' }, { id: 'edge_1.x' }]);
    const text = writeManifest(policy, decision([2, 0, 1]), DIGEST);
    expect(text).toBe(
      `{"VERSION":1,"TTL":300,"RELOAD-URI":"${RELOAD}","PATHWAY-PRIORITY":["edge_1.x","cdn-a","cdn-b"],${TAIL}`,
    );
    expect(text.endsWith('\n')).toBe(false);
    expect(JSON.parse(text)).toMatchObject({ VERSION: 1, TTL: 300 });
  });

  it('reload_uri with a `?` gets `&wai_session=`; without, `?wai_session=`', () => {
    const withQ = policyOf([{ id: 'a' }], { reload_uri: 'https://s.example/r?room=7&x=y' });
    expect(writeManifest(withQ, decision([0], 30), DIGEST)).toBe(
      `{"VERSION":1,"TTL":30,"RELOAD-URI":"https://s.example/r?room=7&x=y&wai_session=${SESSION_HEX}","PATHWAY-PRIORITY":["a"],"science.transaction.wai-decision":"https://steer.example/v1/decision/${DIGEST_HEX}"}`,
    );
    const noQ = policyOf([{ id: 'a' }], { reload_uri: 'https://s.example/r' });
    expect(writeManifest(noQ, decision([0], 1), DIGEST)).toContain(
      `"TTL":1,"RELOAD-URI":"https://s.example/r?wai_session=${SESSION_HEX}"`,
    );
  });

  it('a clone with a host', () => {
    const policy = policyOf([
      { id: 'a' },
      { id: 'b' },
      { id: 'a2', base: 0, host: 'cdn2.example.net' },
    ]);
    expect(writeManifest(policy, decision([2, 1, 0]), DIGEST)).toBe(
      `{"VERSION":1,"TTL":300,"RELOAD-URI":"${RELOAD}","PATHWAY-PRIORITY":["a2","b","a"],"PATHWAY-CLONES":[{"BASE-ID":"a","ID":"a2","URI-REPLACEMENT":{"HOST":"cdn2.example.net"}}],${TAIL}`,
    );
  });

  it('a clone with params, in the policy order, as stored (percent-encoded)', () => {
    const policy = policyOf([
      { id: 'a' },
      {
        id: 'b',
        base: 0,
        params: [
          { name: 'c', value: '1' },
          { name: 'tok%20en', value: '' },
        ],
      },
    ]);
    expect(writeManifest(policy, decision([0, 1]), DIGEST)).toBe(
      `{"VERSION":1,"TTL":300,"RELOAD-URI":"${RELOAD}","PATHWAY-PRIORITY":["a","b"],"PATHWAY-CLONES":[{"BASE-ID":"a","ID":"b","URI-REPLACEMENT":{"PARAMS":{"c":"1","tok%20en":""}}}],${TAIL}`,
    );
  });

  it('a clone with both host and params', () => {
    const policy = policyOf([
      { id: 'a' },
      { id: 'b', base: 0, host: 'h.example', params: [{ name: 'k', value: 'v' }] },
    ]);
    expect(writeManifest(policy, decision([1, 0]), DIGEST)).toBe(
      `{"VERSION":1,"TTL":300,"RELOAD-URI":"${RELOAD}","PATHWAY-PRIORITY":["b","a"],"PATHWAY-CLONES":[{"BASE-ID":"a","ID":"b","URI-REPLACEMENT":{"HOST":"h.example","PARAMS":{"k":"v"}}}],${TAIL}`,
    );
  });

  it('a clone with neither: "URI-REPLACEMENT":{} (C9)', () => {
    const policy = policyOf([{ id: 'a' }, { id: 'b', base: 0 }]);
    expect(writeManifest(policy, decision([0, 1]), DIGEST)).toBe(
      `{"VERSION":1,"TTL":300,"RELOAD-URI":"${RELOAD}","PATHWAY-PRIORITY":["a","b"],"PATHWAY-CLONES":[{"BASE-ID":"a","ID":"b","URI-REPLACEMENT":{}}],${TAIL}`,
    );
  });

  it('clones in the policy order, a clone of a clone naming that clone (C9), first or not', () => {
    const policy = policyOf([
      { id: 'a' },
      { id: 'a-1', base: 0, host: 'one.example' },
      { id: 'b' },
      { id: 'a-1-1', base: 1, host: 'two.example' },
    ]);
    expect(writeManifest(policy, decision([2, 0, 1, 3]), DIGEST)).toBe(
      `{"VERSION":1,"TTL":300,"RELOAD-URI":"${RELOAD}","PATHWAY-PRIORITY":["b","a","a-1","a-1-1"],"PATHWAY-CLONES":[{"BASE-ID":"a","ID":"a-1","URI-REPLACEMENT":{"HOST":"one.example"}},{"BASE-ID":"a-1","ID":"a-1-1","URI-REPLACEMENT":{"HOST":"two.example"}}],${TAIL}`,
    );
  });

  it('hex is lowercase; the TTL has no leading zero', () => {
    const policy = policyOf([{ id: 'a' }]);
    const text = writeManifest(
      policy,
      { session: new Uint8Array(16).fill(0xab), ttl: 4294967295, priority: [0] },
      new Uint8Array(32).fill(0xcd),
    );
    expect(text).toBe(
      `{"VERSION":1,"TTL":4294967295,"RELOAD-URI":"https://steer.example/v1/steer?wai_session=${'ab'.repeat(16)}","PATHWAY-PRIORITY":["a"],"science.transaction.wai-decision":"https://steer.example/v1/decision/${'cd'.repeat(32)}"}`,
    );
  });

  it('the same policy object written twice gives the same text (cached parts)', () => {
    const policy = policyOf([{ id: 'a' }, { id: 'b', base: 0 }]);
    const one = writeManifest(policy, decision([1, 0]), DIGEST);
    expect(writeManifest(policy, decision([1, 0]), DIGEST)).toBe(one);
    expect(writeManifest(policy, decision([0, 1]), DIGEST)).not.toBe(one);
  });

  it('misuse: a session not 16 bytes, a digest not 32, a TTL of 0, a priority past the pathways', () => {
    const policy = policyOf([{ id: 'a' }]);
    expect(() =>
      writeManifest(policy, { session: new Uint8Array(15), ttl: 1, priority: [0] }, DIGEST),
    ).toThrow(TypeError);
    expect(() => writeManifest(policy, decision([0]), new Uint8Array(31))).toThrow(TypeError);
    expect(() => writeManifest(policy, decision([0], 0), DIGEST)).toThrow(RangeError);
    expect(() => writeManifest(policy, decision([1]), DIGEST)).toThrow(RangeError);
    expect(() => writeManifest(policyOf([{ id: 'a"b' }]), decision([0]), DIGEST)).toThrow(
      RangeError,
    );
  });
});

describe('§8.4 the decision URI and the media type', () => {
  it('decision_uri then the digest in lowercase hex', () => {
    expect(decisionUri(policyOf([{ id: 'a' }]), DIGEST)).toBe(
      `https://steer.example/v1/decision/${DIGEST_HEX}`,
    );
  });
  it('the media type of content-steering-04 §11.1', () => {
    expect(STEERING_MEDIA_TYPE).toBe('application/vnd.apple.steering-list');
  });
});
