import { STATUS } from '@wai-steering/wire';
import { describe, expect, it } from 'vitest';
import { evaluatePathway, isStatable, tallyPathway, U128_LIMIT } from '../src/index.js';
import { key, periods, policyOf, rec } from './helpers/fixtures.js';

const P = 1_000_000n;
// Pathway 0: an interior hop key(0) and an edge hop key(1).
const policy = policyOf([{ places: [2, 1] }], { period_us: P, window_us: 3n * P });
const W = { a: 2n * P, b: 5n * P };
const interior = key(0);
const edge = key(1);

/** Both hops tiled over [2P, 5P) with per-period records. */
function full(extraEdge: Parameters<typeof periods>[4] = {}, extraInterior = extraEdge) {
  return [...periods(interior, P, 2, 5, extraInterior), ...periods(edge, P, 2, 5, extraEdge)];
}

describe('§5.3 status, each with a control', () => {
  it('figure (0): every hop covered, one class, D > 0', () => {
    const f = evaluatePathway(policy, 0, full(), W);
    expect(f).toEqual({ status: STATUS.figure, class: 4, joules: 6_000n, delivery: 30_000n });
  });

  it('stale (3): a hop with no record; control: the same hop tiled is a figure', () => {
    expect(evaluatePathway(policy, 0, periods(edge, P, 2, 5), W).status).toBe(STATUS.stale);
    expect(evaluatePathway(policy, 0, full(), W).status).toBe(STATUS.figure);
  });

  it('stale: a gap, an overlap, short of b, starting after a, past b', () => {
    const gap = [
      ...periods(interior, P, 2, 5),
      ...periods(edge, P, 2, 3),
      ...periods(edge, P, 4, 5),
    ];
    expect(evaluatePathway(policy, 0, gap, W).status).toBe(STATUS.stale);
    const overlap = [
      ...periods(interior, P, 2, 5),
      rec({ hop: edge, start: 2n * P, end: 3n * P + 1n }),
      rec({ hop: edge, start: 3n * P, end: 5n * P }),
    ];
    expect(evaluatePathway(policy, 0, overlap, W).status).toBe(STATUS.stale);
    const short = [...periods(interior, P, 2, 5), ...periods(edge, P, 2, 4)];
    expect(evaluatePathway(policy, 0, short, W).status).toBe(STATUS.stale);
    const late = [...periods(interior, P, 2, 5), ...periods(edge, P, 3, 5)];
    expect(evaluatePathway(policy, 0, late, W).status).toBe(STATUS.stale);
    const past = [...periods(interior, P, 2, 5), ...periods(edge, P, 2, 6)];
    expect(evaluatePathway(policy, 0, past, W).status).toBe(STATUS.stale);
  });

  it('C9: records not cut on the period still cover when they tile', () => {
    const odd = [
      rec({ hop: interior, start: 2n * P, end: 2n * P + 123n }),
      rec({ hop: interior, start: 2n * P + 123n, end: 5n * P }),
      rec({ hop: edge, start: 2n * P, end: 5n * P }),
    ];
    const t = tallyPathway(policy, 0, odd, W);
    expect(t.covered).toEqual([true, true]);
    expect(evaluatePathway(policy, 0, odd, W).status).toBe(STATUS.figure);
  });

  it('when a = b no hop is covered (C9: b = 0 makes every pathway stale)', () => {
    const t = tallyPathway(policy, 0, [], { a: 0n, b: 0n });
    expect(t.covered).toEqual([false, false]);
    expect(evaluatePathway(policy, 0, [], { a: 0n, b: 0n }).status).toBe(STATUS.stale);
  });

  it('a pathway with no named record is stale', () => {
    expect(evaluatePathway(policy, 0, [], W)).toEqual({
      status: STATUS.stale,
      class: 0,
      joules: 0n,
      delivery: 0n,
    });
  });

  it('unmetered (1): a record with class 0; control: class 4 is a figure', () => {
    const records = full();
    records[1] = rec({ hop: interior, start: 3n * P, end: 4n * P, cls: 0 });
    expect(evaluatePathway(policy, 0, records, W)).toEqual({
      status: STATUS.unmetered,
      class: 0,
      joules: 0n,
      delivery: 0n,
    });
    records[1] = rec({ hop: interior, start: 3n * P, end: 4n * P, cls: 4 });
    expect(evaluatePathway(policy, 0, records, W).status).toBe(STATUS.figure);
  });

  it('stale comes before unmetered', () => {
    const records = [...periods(interior, P, 2, 5, { cls: 0 }), ...periods(edge, P, 2, 4)];
    expect(evaluatePathway(policy, 0, records, W).status).toBe(STATUS.stale);
  });

  it('mixed (2): two classes; control: one class', () => {
    const records = full({ cls: 4 }, { cls: 2 });
    expect(evaluatePathway(policy, 0, records, W)).toEqual({
      status: STATUS.mixed,
      class: 0,
      joules: 0n,
      delivery: 0n,
    });
    expect(evaluatePathway(policy, 0, full({ cls: 2 }, { cls: 2 }), W)).toMatchObject({
      status: STATUS.figure,
      class: 2,
    });
  });

  it('unmetered comes before mixed', () => {
    const records = full({ cls: 4 }, { cls: 0 });
    expect(evaluatePathway(policy, 0, records, W).status).toBe(STATUS.unmetered);
  });

  it('empty (4): D = 0; control: one byte delivered is a figure', () => {
    const records = full({ bytes: 0n });
    expect(evaluatePathway(policy, 0, records, W)).toEqual({
      status: STATUS.empty,
      class: 0,
      joules: 0n,
      delivery: 0n,
    });
    records[5] = rec({ hop: edge, start: 4n * P, end: 5n * P, bytes: 1n });
    expect(evaluatePathway(policy, 0, records, W)).toMatchObject({
      status: STATUS.figure,
      delivery: 1n,
    });
  });

  it('mixed comes before empty', () => {
    expect(evaluatePathway(policy, 0, full({ cls: 4, bytes: 0n }, { cls: 3 }), W).status).toBe(
      STATUS.mixed,
    );
  });
});

describe('§5.3 J and D', () => {
  it('J sums every hop; D counts the edge hops only (basis 1: media out)', () => {
    const records = [
      ...periods(interior, P, 2, 5, { joules: 7n, bytes: 1_000_000n }),
      ...periods(edge, P, 2, 5, {
        joules: 11n,
        tracks: [
          { track: 1, kind: 1, direction: 2, bytes: 100n }, // media out: counted
          { track: 1, kind: 1, direction: 1, bytes: 10_000n }, // media in
          { track: 2, kind: 2, direction: 2, bytes: 20_000n }, // other out
          { track: 3, kind: 1, direction: 2, bytes: 5n }, // media out: counted
        ],
      }),
    ];
    // J = 3 × 7 + 3 × 11 = 54; D = 3 × (100 + 5) = 315, the interior hop's bytes left out.
    expect(evaluatePathway(policy, 0, records, W)).toEqual({
      status: STATUS.figure,
      class: 4,
      joules: 54n,
      delivery: 315n,
    });
  });

  it('basis 2: subscriber_us from the floor F to 7, edge hops only', () => {
    const p2 = policyOf([{ places: [2, 1] }], {
      period_us: P,
      window_us: 3n * P,
      basis: 2,
      floor: 2,
    });
    const us = [1n, 10n, 100n, 1_000n, 10_000n, 100_000n, 1_000_000n, 10_000_000n];
    const records = [
      ...periods(interior, P, 2, 5, { subscriber_us: us }),
      ...periods(edge, P, 2, 5, { subscriber_us: us, bytes: 0n }),
    ];
    // per edge record: 100 + 1 000 + … + 10 000 000 = 11 111 100; three records.
    expect(evaluatePathway(p2, 0, records, W)).toMatchObject({
      status: STATUS.figure,
      delivery: 33_333_300n,
      joules: 6_000n,
    });
    // basis 1 over the same records: no media bytes out on the edge → empty.
    expect(evaluatePathway(policy, 0, records, W).status).toBe(STATUS.empty);
  });

  it('sums beyond u128 are kept whole, never wrapped (C9)', () => {
    const half = 1n << 127n;
    const records = full({ joules: half });
    const t = tallyPathway(policy, 0, records, W);
    expect(t.joules).toBe(6n * half);
    const f = evaluatePathway(policy, 0, records, W);
    expect(f.joules).toBe(6n * half);
    expect(f.joules >= U128_LIMIT).toBe(true);
    expect(isStatable(f)).toBe(false);
  });

  it('a figure with J = 0 is computed as such, and is not statable (§7.2)', () => {
    const f = evaluatePathway(policy, 0, full({ joules: 0n }), W);
    expect(f).toEqual({ status: STATUS.figure, class: 4, joules: 0n, delivery: 30_000n });
    expect(isStatable(f)).toBe(false);
    expect(isStatable(evaluatePathway(policy, 0, full({ joules: 1n }), W))).toBe(true);
  });

  it('tally: unmetered and mixed are on the named records themselves, even when stale', () => {
    const t = tallyPathway(policy, 0, [...periods(interior, P, 2, 5, { cls: 0 })], W);
    expect(t).toMatchObject({ stale: true, unmetered: true, mixed: false, class: 0 });
    const m = tallyPathway(
      policy,
      0,
      [...periods(interior, P, 2, 3, { cls: 2 }), ...periods(edge, P, 2, 3, { cls: 5 })],
      W,
    );
    expect(m).toMatchObject({ stale: true, unmetered: false, mixed: true, class: 0 });
  });
});
