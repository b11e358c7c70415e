// The account's one rounding (half to even) and its one conversion to float64 (the nearest,
// ties to even), against JavaScript's own division where that is exact enough to compare.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ratio, roundHalfEven, toFloat } from '../../src/internal/exact.js';

describe('roundHalfEven', () => {
  it('rounds a tie to the even integer, on both sides of 0', () => {
    const cases: [bigint, bigint, bigint][] = [
      [5n, 2n, 2n],
      [7n, 2n, 4n],
      [-5n, 2n, -2n],
      [-7n, 2n, -4n],
      [1n, 2n, 0n],
      [-1n, 2n, 0n],
      [2n, 3n, 1n],
      [-2n, 3n, -1n],
      [1n, 3n, 0n],
      [10n, 5n, 2n],
      [5n, -2n, -2n],
    ];
    for (const [n, d, want] of cases) expect(roundHalfEven(ratio(n, d)), `${n}/${d}`).toBe(want);
  });

  it('is within half of the value, and a tie only ever goes to the even side', () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 30n), 10n ** 30n), fc.bigInt(1n, 10n ** 20n), (n, d) => {
        const q = roundHalfEven(ratio(n, d));
        const twice = 2n * (n - q * d); // 2 (x − q) d
        expect(twice <= d && twice >= -d).toBe(true);
        if (twice === d || twice === -d) expect(q % 2n).toBe(0n);
      }),
    );
  });
});

describe('toFloat', () => {
  it('is the correctly rounded quotient that `/` gives for integers below 2^53', () => {
    const safe = fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 });
    fc.assert(
      fc.property(
        safe,
        safe.filter((d) => d !== 0),
        (n, d) => {
          expect(Object.is(toFloat(ratio(BigInt(n), BigInt(d))), n / d || 0)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('does not depend on how the fraction is written (scaled by any power of ten)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 53 - 1 }),
        fc.integer({ min: 1, max: 2 ** 53 - 1 }),
        fc.integer({ min: 0, max: 80 }),
        (n, d, k) => {
          const s = 10n ** BigInt(k);
          expect(toFloat(ratio(BigInt(n) * s, BigInt(d) * s))).toBe(n / d);
        },
      ),
    );
  });

  it('rounds a halfway case to even, as Number does for an integer', () => {
    // 2^53 + 1 lies halfway between 2^53 and 2^53 + 2: the even one is 2^53.
    expect(toFloat(ratio(2n ** 53n + 1n, 1n))).toBe(2 ** 53);
    expect(toFloat(ratio(2n ** 53n + 3n, 1n))).toBe(2 ** 53 + 4);
    // Just above halfway: up. (2^54 + 2 + 1/3) / 2 is above the tie 2^53 + 1.
    expect(toFloat(ratio(3n * (2n ** 54n + 2n) + 1n, 6n))).toBe(2 ** 53 + 2);
    expect(toFloat(ratio(10n ** 400n, 10n ** 399n))).toBe(10);
    expect(toFloat(ratio(0n, 7n))).toBe(0);
  });
});
