import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compress, SHA256_IV, wordAt } from '../../src/guard/sha256-block.js';

/** SHA-256 of any message on `compress`: FIPS 180-4 §5.1.1's padding, then each block. */
function sha256(message: Uint8Array): string {
  const bits = message.length * 8;
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);
  const state = Int32Array.from(SHA256_IV);
  const w = new Int32Array(64);
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < 16; i++) w[i] = wordAt(padded, 64 * b + 4 * i);
    compress(state, w, state);
  }
  const out = new DataView(new ArrayBuffer(32));
  for (let i = 0; i < 8; i++) out.setInt32(4 * i, state[i]!);
  return Buffer.from(out.buffer).toString('hex');
}

describe('compress', () => {
  it("gives SHA-256 as node:crypto's createHash does, for messages of any length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (m) => {
        expect(sha256(m)).toEqual(createHash('sha256').update(m).digest('hex'));
      }),
    );
  });

  it('gives the FIPS 180-4 example digests', () => {
    expect(sha256(new TextEncoder().encode('abc'))).toEqual(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256(new Uint8Array(0))).toEqual(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('reads words big-endian, and bytes past the end as 0', () => {
    expect(wordAt(Uint8Array.of(1, 2, 3, 4), 0)).toEqual(0x01020304);
    expect(wordAt(Uint8Array.of(0xff, 2), 0) >>> 0).toEqual(0xff020000);
  });
});
