import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertBytes, ED25519_L, latin1 } from '../../src/internal/index.js';

describe('the helpers of @wai-steering/wire/internal', () => {
  it("latin1 is Node's latin1 decoding, below and above its 8 KiB chunk", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20_000 }), (bytes) => {
        expect(latin1(bytes)).toBe(Buffer.from(bytes).toString('latin1'));
      }),
      { numRuns: 200 },
    );
    const big = Uint8Array.from({ length: 0x2000 * 2 + 7 }, (_, i) => (i * 31) & 0xff);
    expect(latin1(big)).toBe(Buffer.from(big).toString('latin1'));
  });

  it('assertBytes passes a Uint8Array and names the argument otherwise', () => {
    expect(() => assertBytes(new Uint8Array(1), 'key')).not.toThrow();
    expect(() => assertBytes([1, 2], 'key')).toThrow(new TypeError('key: expected a Uint8Array'));
    expect(() => assertBytes('ab', 'data')).toThrow(TypeError);
  });

  it('ED25519_L is the order of the base point as RFC 8032 §5.1 writes it', () => {
    expect(ED25519_L.toString(16)).toBe(
      '1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed',
    );
  });
});
