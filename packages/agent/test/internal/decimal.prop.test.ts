import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { floorScaled, parseDecimal } from '../../src/index.js';

describe('exact decimals', () => {
  it('reads Go-style exponent forms exactly', () => {
    const cases: [string, bigint][] = [
      ['1.5e+06', 1_500_000_000_000n],
      ['1.00001e+06', 1_000_010_000_000n],
      ['1234.567891', 1_234_567_891n],
      ['0', 0n],
      ['-0', 0n],
      ['.5', 500_000n],
      ['7e-07', 0n], // below a microjoule: cut, counted when the counter's next µJ is reached
      ['2.5E3', 2_500_000_000n],
    ];
    for (const [text, uj] of cases) {
      const d = parseDecimal(text);
      expect(typeof d, text).toBe('object');
      expect(floorScaled(d as Exclude<typeof d, string>, 6), text).toBe(uj);
    }
  });

  it('refuses what is not a finite non-negative decimal', () => {
    for (const text of ['NaN', '+Inf', '-Inf', '-1', '0x10', '1e', '', 'abc', '1.2.3']) {
      expect(typeof parseDecimal(text), text).toBe('string');
    }
  });

  it('reads any µJ count written as joules in plain and exponent form', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 96n) - 1n }), (uj) => {
        const j = `${uj / 1_000_000n}.${String(uj % 1_000_000n).padStart(6, '0')}`;
        const plain = parseDecimal(j);
        if (typeof plain === 'string') return false;
        // The same value as d.ddd…e+NN.
        const digits = String(uj);
        const e = digits.length - 1 - 6;
        const sci = `${digits[0]}.${digits.slice(1) || '0'}e${e >= 0 ? '+' : '-'}${String(Math.abs(e)).padStart(2, '0')}`;
        const s = parseDecimal(sci);
        if (typeof s === 'string') return false;
        return floorScaled(plain, 6) === uj && floorScaled(s, 6) === uj;
      }),
    );
  });
});
