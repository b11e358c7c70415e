import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, parseHex, toHex } from '../src/hex.js';

describe('hex', () => {
  it("toHex is Node's lowercase hex, and parseHex reads it back in either case", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const hex = toHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        expect(parseHex(hex)).toEqual(bytes);
        expect(parseHex(hex.toUpperCase())).toEqual(bytes);
        expect(fromHex(hex)).toEqual(bytes);
      }),
    );
  });

  it('parseHex refuses what is not hex', () => {
    for (const s of ['0', 'zz', '0g', ' 00', '00 ']) expect(parseHex(s)).toBeUndefined();
  });
});
