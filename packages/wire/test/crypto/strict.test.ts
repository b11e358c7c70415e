import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import {
  BoundedCache,
  ED25519_L,
  ED25519_P,
  getBackend,
  isCanonicalY,
  nobleBackend,
  preCheck,
  preCheckKey,
  preCheckSignature,
  useBackend,
  verifyStrict,
} from '../../src/crypto/index.js';
import { fromHex } from '../../src/hex.js';
import { nodeBackend } from '../../src/node.js';

const SECRET = fromHex('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
const MESSAGE = fromHex('72');

describe('strict verification internals', () => {
  it('uses the curve constants of noble', () => {
    expect(ED25519_P).toBe(ed25519.Point.CURVE().p);
    expect(ED25519_L).toBe(ed25519.Point.CURVE().n);
  });

  it('checks y < p on the bytes', () => {
    const le = (n: bigint) =>
      Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
    for (const [y, ok] of [
      [0n, true],
      [ED25519_P - 1n, true],
      [ED25519_P, false],
      [ED25519_P + 18n, false],
      [(1n << 255n) - 1n, false],
      [ED25519_P - 256n, true],
    ] as const) {
      expect(isCanonicalY(le(y)), `y = ${y}`).toBe(ok);
      const signed = le(y);
      signed[31]! |= 0x80; // the sign bit is not part of y
      expect(isCanonicalY(signed), `y = ${y}, sign`).toBe(ok);
    }
  });

  it('refuses a key before looking at the signature (C2 steps 1 and 2 first)', () => {
    const short = new Uint8Array(10);
    for (const verify of [verifyStrict, nobleBackend.verify, nodeBackend.verify]) {
      expect(verify(new Uint8Array(31), MESSAGE, short)).toBe('bad_key');
      expect(verify(new Uint8Array(32), MESSAGE, short)).toBe('bad_key'); // y = 0: small order
    }
    expect(preCheck(new Uint8Array(32), short)).toBe('bad_key');
    expect(preCheckKey(new Uint8Array(32))).toBe('bad_key');
    expect(preCheckSignature(short)).toBe('bad_signature');
  });

  it('does not let a changed key array reuse a cached answer', () => {
    for (const backend of [nobleBackend, nodeBackend]) {
      const pk = backend.publicKey(SECRET);
      const sig = backend.sign(SECRET, MESSAGE);
      expect(backend.verify(pk, MESSAGE, sig)).toBe('ok');
      pk.fill(0); // now the encoding of a point of order 4
      expect(backend.verify(pk, MESSAGE, sig)).toBe('bad_key');
      // and the backend's own copy was not changed
      expect(backend.verify(backend.publicKey(SECRET), MESSAGE, sig)).toBe('ok');
    }
  });

  it('throws a TypeError on what is not bytes', () => {
    const notBytes = [1, 2, 3] as unknown as Uint8Array;
    for (const backend of [nobleBackend, nodeBackend]) {
      expect(() => backend.verify(notBytes, MESSAGE, new Uint8Array(64))).toThrow(TypeError);
      expect(() => backend.sign(SECRET, notBytes)).toThrow(TypeError);
      expect(() => backend.sha256(notBytes)).toThrow(TypeError);
    }
  });

  it('keeps at most `limit` entries in a bounded cache, dropping the oldest', () => {
    const cache = new BoundedCache<number>(3);
    for (let i = 0; i < 5; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k4')).toBe(4);
    cache.set('k4', 40); // an update does not evict
    expect(cache.size).toBe(3);
    expect(cache.get('k2')).toBe(2);
    expect(() => new BoundedCache(0)).toThrow(RangeError);
  });

  it('verifies through more keys than the caches hold', () => {
    const message = new Uint8Array(0);
    const keys = Array.from({ length: 4200 }, (_, i) => {
      const s = new Uint8Array(32);
      s[0] = i & 0xff;
      s[1] = i >> 8;
      return s;
    });
    // Sign a few with noble (slow) and check that both backends still agree after eviction.
    const sample = [0, 1, 4199];
    const sigs = sample.map((i) => nobleBackend.sign(keys[i]!, message));
    for (const s of keys) nodeBackend.sign(s, message);
    sample.forEach((i, j) => {
      const pk = nobleBackend.publicKey(keys[i]!);
      expect(nodeBackend.sign(keys[i]!, message)).toEqual(sigs[j]);
      expect(nodeBackend.verify(pk, message, sigs[j]!)).toBe('ok');
    });
  });
});

describe('default backend holder', () => {
  it('defaults to noble and can be switched', () => {
    expect(getBackend()).toBe(nobleBackend);
    useBackend(nodeBackend);
    expect(getBackend()).toBe(nodeBackend);
    useBackend(nobleBackend);
    expect(getBackend()).toBe(nobleBackend);
    expect(() => useBackend({} as never)).toThrow(TypeError);
    expect(getBackend()).toBe(nobleBackend);
  });
});
