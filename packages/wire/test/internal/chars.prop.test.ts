import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstRepeat } from '../../src/internal/chars.js';

/** The first index whose bytes equal an earlier element's, by pairwise comparison. */
function naiveFirstRepeat(list: readonly Uint8Array[]): number {
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = list[i]!;
      const b = list[j]!;
      if (a.length === b.length && a.every((x, k) => x === b[k])) return i;
    }
  }
  return -1;
}

describe('firstRepeat ("no key twice", §3.3 and §7.2)', () => {
  it('finds the first element equal to an earlier one, as a pairwise search does', () => {
    // Small byte strings from a small alphabet, so that repeats are frequent.
    const bytes = fc.uint8Array({ minLength: 0, maxLength: 3, max: 2 });
    fc.assert(
      fc.property(fc.array(bytes, { maxLength: 40 }), (list) => {
        expect(firstRepeat(list)).toBe(naiveFirstRepeat(list));
      }),
      { numRuns: 2000 },
    );
  });
});
