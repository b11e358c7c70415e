// The running sums, added in float64 limbs where that is exact, against plain bigint sums.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunningSums } from '../../src/internal/sums.js';

const MAX = 2 ** 53 - 1;

describe('RunningSums', () => {
  it('is the bigint sum of D, J, D², DJ and J², whatever the sizes', () => {
    const term = fc.oneof(
      fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 0, max: MAX }),
      fc.constantFrom(0, 1, 2 ** 21 - 1, 2 ** 21, 2 ** 42, 2 ** 52, MAX),
    );
    const big = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
    const period = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.tuple(term, term).map(([d, j]) => [BigInt(d), BigInt(j)] as const),
      },
      { weight: 1, arbitrary: fc.tuple(big, big) },
    );
    fc.assert(
      fc.property(fc.array(period, { maxLength: 2000 }), (periods) => {
        const s = new RunningSums();
        let [sD, sJ, sDD, sDJ, sJJ] = [0n, 0n, 0n, 0n, 0n];
        for (const [d, j] of periods) {
          s.addBig(d, j);
          sD += d;
          sJ += j;
          sDD += d * d;
          sDJ += d * j;
          sJJ += j * j;
        }
        expect([s.n, s.sD, s.sJ, s.sDD, s.sDJ, s.sJJ]).toEqual([
          periods.length,
          sD,
          sJ,
          sDD,
          sDJ,
          sJJ,
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('moves an accumulator into its bigint before it passes 2^53', () => {
    const s = new RunningSums();
    const x = MAX;
    for (let i = 0; i < 5000; i++) s.add(x, x);
    const n = 5000n;
    const X = BigInt(x);
    expect([s.sD, s.sDD, s.sDJ]).toEqual([n * X, n * X * X, n * X * X]);
  });
});
