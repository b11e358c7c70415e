import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wasmTreeHashing } from '../src/index.js';

const h = await wasmTreeHashing();

const sha256 = (...parts: Uint8Array[]): Uint8Array => {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p);
  return new Uint8Array(hash.digest());
};

/** `count` messages of `length` bytes, one after the other. */
const messages = (maxLength: number, maxCount: number) =>
  fc
    .record({ length: fc.nat(maxLength), count: fc.integer({ min: 0, max: maxCount }) })
    .chain(({ length, count }) =>
      fc
        .uint8Array({ minLength: length * count, maxLength: length * count })
        .map((data) => ({ data, length, count })),
    );

describe('wasmTreeHashing', () => {
  it('hashes one message as node:crypto does, every length of one and two blocks of padding', () => {
    for (let length = 0; length <= 200; length++) {
      const data = new Uint8Array(length).map((_, i) => (i * 131 + length) & 0xff);
      expect(h.sha256(data)).toEqual(sha256(data));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 65_536 }), (d) => {
        expect(h.sha256(d)).toEqual(sha256(d));
      }),
      { numRuns: 200 },
    );
  });

  it('gives RFC 6962 leaf hashes of batches as node:crypto does, four at a time and the rest', () => {
    fc.assert(
      fc.property(messages(130, 13), ({ data, length, count }) => {
        const out = h.leafHashes(data, count, length);
        expect(out.length).toBe(32 * count);
        for (let i = 0; i < count; i++) {
          const entry = data.subarray(i * length, (i + 1) * length);
          expect(out.subarray(32 * i, 32 * i + 32)).toEqual(sha256(Uint8Array.of(0), entry));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives node hashes of batches larger than its memory holds, a call after the other', () => {
    // 2,500 pairs: more than the 1,008 of 65 bytes the module's areas hold in one call.
    const count = 2_500;
    const pairs = new Uint8Array(64 * count).map((_, i) => (i * 7919) & 0xff);
    const out = h.nodeHashes(pairs, count);
    for (let i = 0; i < count; i++) {
      const pair = pairs.subarray(64 * i, 64 * i + 64);
      expect(out.subarray(32 * i, 32 * i + 32)).toEqual(sha256(Uint8Array.of(1), pair));
    }
    // Entries as long as a bundle carries, one a call, and empty ones, 2,048 a call.
    const long = new Uint8Array(2 * 65_535).map((_, i) => i & 0xff);
    const leaves = h.leafHashes(long, 2, 65_535);
    expect(leaves.subarray(32, 64)).toEqual(sha256(Uint8Array.of(0), long.subarray(65_535)));
    const empty = h.leafHashes(new Uint8Array(0), 5_000, 0);
    expect(empty.subarray(32 * 4_999)).toEqual(sha256(Uint8Array.of(0)));
  });

  it('gives new arrays, and is a TypeError for a batch whose bytes are not count × length', () => {
    const a = h.sha256(Uint8Array.of(1));
    const b = h.nodeHashes(new Uint8Array(64), 1);
    h.sha256(Uint8Array.of(2));
    expect(a).toEqual(sha256(Uint8Array.of(1)));
    expect(b).toEqual(sha256(Uint8Array.of(1), new Uint8Array(64)));
    expect(() => h.leafHashes(new Uint8Array(41), 1, 40)).toThrow(TypeError);
  });
});
