// Why a pathway is stale: each hop's missing, overlapping, crossing and off-period spans.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainCoverage, MemoryEvidenceStore, selectEvidence, windowAt } from '../src/index.js';
import { ev, periods, policyOf, rec } from './helpers/fixtures.js';

const S = 1_000_000n;
// Two pathways: p0 with hops key(0), key(1); p1 with hop key(16).
const policy = policyOf([{ places: [1, 2] }, { places: [1] }], {
  period_us: S,
  window_us: 3n * S,
  lag_us: 0n,
});
const K0 = policy.pathways[0]!.hops[0]!.key;
const K1 = policy.pathways[0]!.hops[1]!.key;
const K2 = policy.pathways[1]!.hops[0]!.key;
const window = { a: 10n * S, b: 13n * S };

function storeOf(...records: ReturnType<typeof rec>[]) {
  const store = new MemoryEvidenceStore();
  for (const r of records) store.add(ev(r).record, ev(r).digest);
  // Every record of the hop, whatever the window: crossing records must be seen too.
  return {
    recordsOfHop: (hop: Uint8Array) =>
      records.filter((r) => r.hop.every((x, i) => x === hop[i])).map(ev),
    store,
  };
}

describe('explainCoverage', () => {
  it('names nothing for hops whose records tile the window', () => {
    const s = storeOf(
      ...periods(K0, S, 10, 13),
      ...periods(K1, S, 10, 13),
      ...periods(K2, S, 10, 13),
    );
    const out = explainCoverage(policy, window, s);
    expect(out.map((p) => p.covered)).toEqual([true, true]);
    for (const h of out.flatMap((p) => p.hops)) {
      expect(h).toMatchObject({
        tiles: true,
        inWindow: 3,
        missing: [],
        overlapping: [],
        crossing: [],
        offPeriod: [],
      });
    }
  });

  it('names the hop and the periods missing', () => {
    // K1 lacks [11 s, 12 s); K2 has nothing at all.
    const s = storeOf(
      ...periods(K0, S, 10, 13),
      ...periods(K1, S, 10, 11),
      ...periods(K1, S, 12, 13),
    );
    const [p0, p1] = explainCoverage(policy, window, s);
    expect(p0!.covered).toBe(false);
    expect(p0!.hops[0]!.tiles).toBe(true);
    expect(p0!.hops[1]).toMatchObject({
      hop: 1,
      tiles: false,
      inWindow: 2,
      missing: [{ start: 11n * S, end: 12n * S }],
    });
    expect(p1!.hops[0]).toMatchObject({
      tiles: false,
      inWindow: 0,
      missing: [{ start: 10n * S, end: 13n * S }],
    });
  });

  it('names overlapping, crossing and off-period records', () => {
    const s = storeOf(
      rec({ hop: K0, start: 10n * S, end: 11_500_000n }),
      rec({ hop: K0, start: 11n * S, end: 13n * S }),
      rec({ hop: K1, start: 9n * S, end: 11n * S }),
      ...periods(K1, S, 11, 13),
    );
    const [p0] = explainCoverage(policy, window, s);
    expect(p0!.hops[0]).toMatchObject({
      tiles: false,
      missing: [],
      overlapping: [{ start: 11n * S, end: 11_500_000n }],
      offPeriod: [{ start: 10n * S, end: 11_500_000n }],
    });
    expect(p0!.hops[1]).toMatchObject({
      tiles: false,
      missing: [{ start: 10n * S, end: 11n * S }],
      crossing: [{ start: 9n * S, end: 11n * S }],
    });
  });

  it('two records of one span are not an overlap', () => {
    const one = rec({ hop: K2, start: 10n * S, end: 13n * S, joules: 5n });
    const two = rec({ hop: K2, start: 10n * S, end: 13n * S, joules: 6n });
    const [, p1] = explainCoverage(policy, window, storeOf(one, two));
    expect(p1!.hops[0]).toMatchObject({ tiles: true, overlapping: [], missing: [] });
  });

  it('agrees with the selection: a pathway is covered exactly when §5.2 finds a tiling', () => {
    const span = fc.record({
      k: fc.integer({ min: 8, max: 14 }),
      n: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(span, { maxLength: 8 }), (spans) => {
        const records = spans.map((x) =>
          rec({ hop: K2, start: BigInt(x.k) * S, end: BigInt(x.k + x.n) * S }),
        );
        const s = storeOf(...periods(K0, S, 10, 13), ...periods(K1, S, 10, 13), ...records);
        const w = windowAt(policy, 13n * S);
        const evidence = selectEvidence(policy, w, s.store);
        const [, p1] = explainCoverage(policy, w, s);
        expect(p1!.covered).toBe(evidence.pathways[1]!.status === 0);
        // Missing is empty whenever the hop tiles.
        if (p1!.covered) expect(p1!.hops[0]!.missing).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
