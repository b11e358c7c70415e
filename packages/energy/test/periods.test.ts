// The account kept period by period: the facts an accumulator tells make the account it
// finishes with, and the facts of adjacent spans, accounted apart, make the account of the span
// they tile (what a server keeping the trailing day's account relies on).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountOfPeriods, energyAccount, type PeriodFacts, writeAccount } from '../src/index.js';
import { build, P, scenarioArb } from './helpers/scenario.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

describe('accountOfPeriods', () => {
  it('makes, from the facts an account tells, the account itself', () => {
    fc.assert(
      fc.property(scenarioArb, fc.boolean(), (s, replayed) => {
        const b = build(s);
        const facts: PeriodFacts[] = [];
        const base = { policies: [{ at: 0n, policy: b.policy }], from: b.from, to: b.to };
        const whole = energyAccount({
          ...base,
          records: b.records,
          ...(replayed ? { decisions: b.decisions, graceS: 3 } : {}),
          onFacts: (f) => facts.push(f),
        });
        // One fact a period, in order.
        expect(facts.map((f) => f.start)).toEqual(
          Array.from({ length: s.periods }, (_, k) => b.from + BigInt(k) * P),
        );
        expect(writeAccount(accountOfPeriods({ ...base, replayed }, facts))).toBe(
          writeAccount(whole),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('makes the account of a span from the facts of two spans that tile it, accounted apart', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), (s, cut) => {
        const b = build(s);
        const policies = [{ at: 0n, policy: b.policy }];
        const m = b.from + BigInt(cut % (s.periods + 1)) * P;
        const part = (from: bigint, to: bigint): PeriodFacts[] => {
          const facts: PeriodFacts[] = [];
          if (from === to) return facts;
          energyAccount({
            policies,
            from,
            to,
            records: b.records,
            decisions: b.decisions,
            graceS: 3,
            onFacts: (f) => facts.push(f),
          });
          return facts;
        };
        const whole = energyAccount({
          policies,
          from: b.from,
          to: b.to,
          records: b.records,
          decisions: b.decisions,
          graceS: 3,
        });
        const facts = [...part(m, b.to), ...part(b.from, m)];
        expect(
          writeAccount(
            accountOfPeriods({ policies, from: b.from, to: b.to, replayed: true }, facts),
          ),
        ).toBe(writeAccount(whole));
      }),
      { numRuns: RUNS },
    );
  });

  it('passes over facts outside the span and counts a period no fact gives as unusable', () => {
    const b = build({
      hops: [[1], [1]],
      periods: 4,
      initial: 0,
      basis: 1,
      cells: [
        [
          Array.from({ length: 4 }, () => ({
            joules: 5_000_000n,
            bytes: 1_000_000n,
            sessions: 2,
            fault: 'none',
          })),
        ],
        [
          Array.from({ length: 4 }, () => ({
            joules: 3_000_000n,
            bytes: 1_000_000n,
            sessions: 1,
            fault: 'none',
          })),
        ],
      ],
      decisions: [],
    } as unknown as Parameters<typeof build>[0]);
    const policies = [{ at: 0n, policy: b.policy }];
    const facts: PeriodFacts[] = [];
    energyAccount({
      policies,
      from: b.from,
      to: b.to,
      records: b.records,
      onFacts: (f) => facts.push(f),
    });
    const inner = { policies, from: b.from + P, to: b.to - P, replayed: false };
    const a = accountOfPeriods(inner, facts);
    expect(a.pathways.map((p) => p.periods)).toEqual([2, 2]);
    // The second of the inner periods left out: unusable for both pathways.
    const b2 = accountOfPeriods(
      inner,
      facts.filter((f) => f.start !== b.from + 2n * P),
    );
    expect(b2.pathways.map((p) => [p.periods, p.periods_unusable])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(b2.pathways[0]!.joules_uj).toBe(5_000_000n);
  });

  it('refuses a fact off the periods, a period twice, another number of pathways', () => {
    const b = build({
      hops: [[1]],
      periods: 2,
      initial: 0,
      basis: 1,
      cells: [
        [Array.from({ length: 2 }, () => ({ joules: 5n, bytes: 1n, sessions: 1, fault: 'none' }))],
      ],
      decisions: [],
    } as unknown as Parameters<typeof build>[0]);
    const o = { policies: [{ at: 0n, policy: b.policy }], from: b.from, to: b.to, replayed: false };
    const part = { usable: true, joules: 1n, delivery: 1n, sessions: 0, placed: null };
    expect(() => accountOfPeriods(o, [{ start: b.from + 1n, pathways: [part] }])).toThrow(
      /off the span's periods/,
    );
    expect(() =>
      accountOfPeriods(o, [
        { start: b.from, pathways: [part] },
        { start: b.from, pathways: [part] },
      ]),
    ).toThrow(/given twice/);
    expect(() => accountOfPeriods(o, [{ start: b.from, pathways: [part, part] }])).toThrow(
      /2 pathways, the policy 1/,
    );
  });
});
