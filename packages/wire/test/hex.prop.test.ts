import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesEqual, compareBytes, fromHex, parseHex, toHex } from '../src/hex.js';

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

  it("bytesEqual is Node's Buffer.equals, on equal, near and unrelated byte strings", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        fc.uint8Array({ maxLength: 80 }),
        fc.nat(),
        (a, b, at) => {
          expect(bytesEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
          expect(bytesEqual(a, a.slice())).toBe(true);
          if (a.length > 0) {
            const near = a.slice();
            const k = at % a.length;
            near[k] = near[k]! ^ (1 << (at % 8));
            expect(bytesEqual(a, near)).toBe(false);
            expect(bytesEqual(a, a.subarray(1))).toBe(false);
          }
          expect(Math.sign(compareBytes(a, b))).toBe(Buffer.compare(a, b));
        },
      ),
    );
  });
});
