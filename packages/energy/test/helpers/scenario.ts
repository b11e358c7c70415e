// Random rooms for the property tests: a policy of one to three pathways of one to three hops,
// records over up to 40 periods with every kind of fault item 1b names (a missing record, a
// record cut in two, one that crosses a bound, the unmetered marker, another class, an overlap,
// a duplicate), and decisions across the span.
import type { EvidenceRecord } from '@wai-steering/evidence';
import type { Policy } from '@wai-steering/wire';
import fc from 'fast-check';
import type { AccountDecision } from '../../src/index.js';
import { decision, ev, hopKey, policyOf, rec } from './fixtures.js';

export const P = 1_000_000n;

/** What happens to one hop's record of one period. */
const FAULTS = ['none', 'missing', 'halves', 'crossing', 'unmetered', 'class', 'overlap', 'twice'];

/** One hop's record of one period, and its fault. */
export interface Cell {
  readonly joules: bigint;
  readonly bytes: bigint;
  readonly sessions: number;
  readonly fault: string;
}

const cell: fc.Arbitrary<Cell> = fc.record({
  joules: fc.bigInt({ min: 0n, max: 5_000_000n }),
  bytes: fc.bigInt({ min: 0n, max: 3_000_000n }),
  sessions: fc.integer({ min: 0, max: 500 }),
  fault: fc.oneof(
    { weight: 30, arbitrary: fc.constant('none') },
    { weight: 1, arbitrary: fc.constantFrom(...FAULTS.slice(1)) },
  ),
});

export interface Scenario {
  readonly hops: readonly (readonly number[])[];
  readonly periods: number;
  readonly initial: number;
  readonly basis: number;
  /** By pathway, hop, period. */
  readonly cells: readonly (readonly (readonly Cell[])[])[];
  readonly decisions: readonly { t: number; session: number; first: number; ttl: number }[];
}

export const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    hops: fc.array(
      fc.array(fc.constantFrom(1, 2), { minLength: 0, maxLength: 2 }).map((rest) => [1, ...rest]),
      { minLength: 1, maxLength: 3 },
    ),
    periods: fc.integer({ min: 1, max: 40 }),
    initialSeed: fc.nat(),
    basis: fc.constantFrom(1, 2),
  })
  .chain(({ hops, periods, initialSeed, basis }) =>
    fc.record({
      hops: fc.constant(hops),
      periods: fc.constant(periods),
      initial: fc.constant(initialSeed % hops.length),
      basis: fc.constant(basis),
      cells: fc.tuple(
        ...hops.map((hs) =>
          fc.array(fc.array(cell, { minLength: periods, maxLength: periods }), {
            minLength: hs.length,
            maxLength: hs.length,
          }),
        ),
      ),
      decisions: fc.array(
        fc.record({
          t: fc.integer({ min: -20_000_000, max: periods * 1_000_000 }),
          session: fc.integer({ min: 0, max: 6 }),
          first: fc.nat({ max: hops.length - 1 }),
          ttl: fc.integer({ min: 1, max: 20 }),
        }),
        { maxLength: 30 },
      ),
    }),
  ) as fc.Arbitrary<Scenario>;

export interface Built {
  readonly policy: Policy;
  readonly records: EvidenceRecord[];
  readonly decisions: AccountDecision[];
  readonly from: bigint;
  readonly to: bigint;
}

/** The policy, records and decisions of a scenario; the span starts at 30 s. */
export function build(s: Scenario): Built {
  const from = 30n * P;
  const policy = policyOf(
    s.hops.map((places, i) => ({ id: `p${i}`, places })),
    { initial: s.initial, basis: s.basis, floor: 1 },
  );
  const records: EvidenceRecord[] = [];
  s.cells.forEach((hops, p) => {
    hops.forEach((cells, h) => {
      cells.forEach((c, k) => {
        const start = from + BigInt(k) * P;
        const end = start + P;
        const base = {
          hop: hopKey(p, h),
          joules: c.joules,
          bytes: c.bytes,
          sessions: c.sessions,
          subscriber_us: [c.bytes, c.bytes / 2n, c.bytes / 3n, 0n, 0n, 0n, 0n, 7n],
        };
        switch (c.fault) {
          case 'missing':
            return;
          case 'halves':
            records.push(ev(rec({ ...base, start, end: start + P / 2n })));
            records.push(ev(rec({ ...base, start: start + P / 2n, end, joules: 1n })));
            return;
          case 'crossing':
            records.push(ev(rec({ ...base, start: start + P / 2n, end: end + P / 2n })));
            return;
          case 'unmetered':
            records.push(ev(rec({ ...base, start, end, cls: 0, joules: 0n })));
            return;
          case 'class':
            records.push(ev(rec({ ...base, start, end, cls: 2 })));
            return;
          case 'overlap':
            records.push(ev(rec({ ...base, start, end })));
            records.push(ev(rec({ ...base, start, end, joules: c.joules + 1n })));
            return;
          case 'twice':
            records.push(ev(rec({ ...base, start, end })));
            records.push(ev(rec({ ...base, start, end })));
            return;
          default:
            records.push(ev(rec({ ...base, start, end })));
        }
      });
    });
  });
  const decisions = [...s.decisions]
    .sort((x, y) => x.t - y.t)
    .map((d) => decision(policy, from + BigInt(d.t), d.session, d.first, d.ttl));
  return { policy, records, decisions, from, to: from + BigInt(s.periods) * P };
}
