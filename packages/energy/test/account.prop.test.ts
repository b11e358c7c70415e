// Properties of the account: the order of the records changes nothing; a
// record given twice counts once; the streaming accumulator is the array function; a pathway
// with no delivery changes no saving; moving delivery from a pathway of higher b to one of lower
// b raises the marginal saving by exactly the delivery moved times the difference.
import type { EvidenceRecord } from '@wai-steering/evidence';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AccountDecision,
  EnergyAccumulator,
  energyAccount,
  writeAccount,
} from '../src/index.js';
import { hopKey, period, policyOf } from './helpers/fixtures.js';
import { build, P, scenarioArb } from './helpers/scenario.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1664525 + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('the account as a function of its inputs', () => {
  it('does not depend on the order of the records', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (s, seed) => {
        const b = build(s);
        const base = { policies: [{ at: 0n, policy: b.policy }], from: b.from, to: b.to };
        const x = energyAccount({ ...base, records: b.records, decisions: b.decisions, graceS: 3 });
        const y = energyAccount({
          ...base,
          records: shuffled(b.records, seed),
          decisions: b.decisions,
          graceS: 3,
        });
        expect(writeAccount(y)).toBe(writeAccount(x));
      }),
      { numRuns: RUNS },
    );
  });

  it('counts a record given twice once', () => {
    fc.assert(
      fc.property(scenarioArb, fc.array(fc.nat()), (s, picks) => {
        const b = build(s);
        const base = { policies: [{ at: 0n, policy: b.policy }], from: b.from, to: b.to };
        const again = picks
          .filter(() => b.records.length > 0)
          .map((i) => b.records[i % b.records.length]!);
        const x = energyAccount({ ...base, records: b.records });
        const y = energyAccount({ ...base, records: [...again, ...b.records, ...again] });
        expect(writeAccount(y)).toBe(writeAccount(x));
      }),
      { numRuns: RUNS },
    );
  });

  it('is the same fed as a stream, whatever the interleaving of records and decisions', () => {
    fc.assert(
      fc.property(scenarioArb, fc.array(fc.boolean(), { maxLength: 400 }), (s, coin) => {
        const b = build(s);
        const options = {
          policies: [{ at: 0n, policy: b.policy }],
          from: b.from,
          to: b.to,
          graceS: 3,
        };
        const want = writeAccount(
          energyAccount({ ...options, records: b.records, decisions: b.decisions }),
        );
        const byStart = [...b.records].sort((x, y) =>
          x.record.start < y.record.start ? -1 : x.record.start > y.record.start ? 1 : 0,
        );
        const acc = new EnergyAccumulator(options);
        let r = 0;
        let d = 0;
        let c = 0;
        while (r < byStart.length || d < b.decisions.length) {
          const takeRecord = d >= b.decisions.length || (r < byStart.length && (coin[c++] ?? true));
          if (takeRecord) acc.addRecord(byStart[r++]!);
          else acc.addDecision(b.decisions[d++]!);
        }
        expect(writeAccount(acc.finish())).toBe(want);
        expect(acc.finish()).toBe(acc.finish());
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a record of a period already closed', () => {
    const policy = policyOf([{ id: 'a', places: [1] }]);
    const acc = new EnergyAccumulator({ policies: [{ at: 0n, policy }], from: 0n, to: 3n * P });
    acc.addRecord(period(hopKey(0, 0), P, 2));
    expect(() => acc.addRecord(period(hopKey(0, 0), P, 1))).toThrow(TypeError);
    acc.finish();
    expect(() => acc.addRecord(period(hopKey(0, 0), P, 2))).toThrow(TypeError);
  });
});

describe('the savings', () => {
  it('are not changed by a pathway that delivered nothing', () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.array(fc.bigInt({ min: 0n, max: 9_000_000n }), { minLength: 40, maxLength: 40 }),
        (s, joules) => {
          // The scenario's pathways, and z, whose hop delivers nothing (whatever it spends).
          const b = build({ ...s, hops: [...s.hops, [1]], cells: [...s.cells, []] });
          const z = s.hops.length;
          const empty: EvidenceRecord[] = [];
          for (let k = 0; k < s.periods; k++) {
            empty.push(
              period(hopKey(z, 0), P, 30 + k, {
                joules: joules[k]!,
                bytes: 0n,
                subscriber_us: Array(8).fill(0n),
              }),
            );
          }
          const base = { policies: [{ at: 0n, policy: b.policy }], from: b.from, to: b.to };
          const without = energyAccount({ ...base, records: b.records });
          const withZ = energyAccount({ ...base, records: [...b.records, ...empty] });
          expect(withZ.pathways[z]!.delivery).toBe(0n);
          expect([withZ.saved_average_uj, withZ.saved_marginal_uj]).toEqual([
            without.saved_average_uj,
            without.saved_marginal_uj,
          ]);
          expect(withZ.saved_marginal_ci95_uj).toEqual(without.saved_marginal_ci95_uj);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('rise by δ (b_H − b_L) when δ of delivery moves from a pathway of higher b to one of lower b', () => {
    // Exact lines J = a + c·D/1000 (b = c/1000 µJ per byte): moving delivery changes no fit.
    const line = fc.record({
      a: fc.bigInt({ min: 0n, max: 10n ** 9n }),
      c: fc.bigInt({ min: 0n, max: 200n }),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 2, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.array(fc.bigInt({ min: 1n, max: 1000n }), { minLength: 4 * 40, maxLength: 4 * 40 }),
        fc.nat({ max: 39 }),
        fc.bigInt({ min: 1n, max: 1000n }),
        (lines, iSeed, hSeed, lSeed, ds, k, share) => {
          const n = lines.length;
          const [h, l] = [hSeed % n, lSeed % n];
          fc.pre(lines[h]!.c > lines[l]!.c);
          const policy = policyOf(
            lines.map((_, p) => ({ id: `p${p}`, places: [1] })),
            { initial: iSeed % n },
          );
          // D in thousands of bytes, each pathway's own, 40 periods.
          const D = lines.map((_, p) => ds.slice(p * 40, p * 40 + 40).map((x) => x * 1000n));
          const records = (d: bigint[][]) =>
            lines.flatMap((ln, p) =>
              d[p]!.map((x, kk) =>
                period(hopKey(p, 0), P, kk, { bytes: x, joules: ln.a + (ln.c * x) / 1000n }),
              ),
            );
          const moved = D.map((x) => [...x]);
          const delta = ((moved[h]![k]! * share) / 1000n / 1000n) * 1000n;
          fc.pre(delta > 0n);
          moved[h]![k]! -= delta;
          moved[l]![k]! += delta;
          const base = { policies: [{ at: 0n, policy }], from: 0n, to: 40n * P };
          const before = energyAccount({ ...base, records: records(D) });
          const after = energyAccount({ ...base, records: records(moved) });
          fc.pre(before.saved_marginal_uj !== null && after.saved_marginal_uj !== null);
          const gain = (delta * (lines[h]!.c - lines[l]!.c)) / 1000n;
          expect(after.saved_marginal_uj! - before.saved_marginal_uj!).toBe(gain);
          expect(after.saved_marginal_uj! > before.saved_marginal_uj!).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('a decision stream', () => {
  it('must come in ascending t', () => {
    const policy = policyOf([{ id: 'a', places: [1] }]);
    const acc = new EnergyAccumulator({
      policies: [{ at: 0n, policy }],
      from: 0n,
      to: 3n * P,
      graceS: 0,
    });
    const d = (t: bigint): AccountDecision => ({
      t,
      session: new Uint8Array(16),
      policy: new Uint8Array(32),
      ttl: 1,
      priority: [0],
      pathways: [{}],
    });
    acc.addDecision(d(5n));
    expect(() => acc.addDecision(d(4n))).toThrow(TypeError);
    const plain = new EnergyAccumulator({ policies: [{ at: 0n, policy }], from: 0n, to: P });
    expect(() => plain.addDecision(d(1n))).toThrow(TypeError);
  });
});
