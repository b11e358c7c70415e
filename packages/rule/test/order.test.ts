import { STATUS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { orderPathways, rankOf } from '../src/index.js';
import { fig, none, policyOf } from './helpers/rule-fixtures.js';

describe('§6.2 rank', () => {
  it('class 5 → 0, 4 → 1, 2 → 2, 3 → 3, no figure → 4', () => {
    expect([5, 4, 2, 3].map((c) => rankOf(fig(c, 1n, 1n)))).toEqual([0, 1, 2, 3]);
    for (const s of [STATUS.unmetered, STATUS.mixed, STATUS.stale, STATUS.empty]) {
      expect(rankOf(none(s))).toBe(4);
    }
  });
});

describe('§6.2 order', () => {
  const ids = ['d', 'b', 'a', 'c', 'e'].map((id) => ({ id }));
  const policy = policyOf(ids);
  it('rank first, then J_p × D_q < J_q × D_p within a class, then id bytewise', () => {
    const figures = [
      none(), // d
      fig(2, 1n, 1_000n), // b: ModelBased, cheapest overall
      fig(4, 30n, 10n), // a: OnChipCounter 3
      fig(4, 20n, 10n), // c: OnChipCounter 2
      none(STATUS.unmetered), // e
    ];
    // Ranks: c, a (1), b (2), d, e (4, by id).
    expect(orderPathways(policy, figures)).toEqual([3, 2, 1, 0, 4]);
  });
  it('equal figures within a class: by id; products beyond 2^128 compared exactly', () => {
    const big = (1n << 127n) + 1n;
    const figures = [
      fig(5, big, big),
      fig(5, 2n, 2n),
      fig(5, big, big - 1n),
      fig(5, 1n, 1n),
      none(),
    ];
    // d = b = c? d: 1, b: 1, a: slightly above 1, c: 1 → by id among equals: b, c, d; then a.
    expect(orderPathways(policy, figures)).toEqual([1, 3, 0, 2, 4]);
  });
  it('ids compare bytewise (uppercase before lowercase, prefix first)', () => {
    const p = policyOf([{ id: 'a' }, { id: 'B' }, { id: 'aa' }, { id: '_' }]);
    expect(orderPathways(p, [none(), none(), none(), none()])).toEqual([1, 3, 0, 2]);
  });
});
