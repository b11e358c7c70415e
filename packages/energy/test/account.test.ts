// The account's contract (docs/energy.md) on small data computed by hand (the expected values are
// written out in the comments' arithmetic), or by the plain rationals of helpers/reference.ts.
import { describe, expect, it } from 'vitest';
import {
  accountJson,
  type EnergyAccount,
  energyAccount,
  type PathwayAccount,
  writeAccount,
} from '../src/index.js';
import { decision, ev, hopKey, period, policyOf, ROOM_HEX, rec } from './helpers/fixtures.js';
import { close } from './helpers/fraction.js';
import { refPathway, refSavings } from './helpers/reference.js';

const P = 1_000_000n;
const S = (k: number) => BigInt(k) * P;

function path(a: EnergyAccount, id: string): PathwayAccount {
  const p = a.pathways.find((x) => x.id === id);
  if (p === undefined) throw new Error(`no pathway ${id}`);
  return p;
}

describe('the account on three periods (items 1b, 1c, 1f, 1g)', () => {
  // Pathway a (initial): an edge hop and an interior hop; b: one edge hop.
  const policy = policyOf([
    { id: 'a', places: [1, 2] },
    { id: 'b', places: [1] },
  ]);
  const records = [
    // a, period 0: J = 2000 + 1000, D = 1000 (the interior hop's bytes are not delivery).
    period(hopKey(0, 0), P, 0, { joules: 2000n, bytes: 1000n, sessions: 4 }),
    period(hopKey(0, 1), P, 0, { joules: 1000n, bytes: 999n, sessions: 100 }),
    // a, period 1: J = 2500 + 1000, D = 1500.
    period(hopKey(0, 0), P, 1, { joules: 2500n, bytes: 1500n, sessions: 5 }),
    period(hopKey(0, 1), P, 1, { joules: 1000n, bytes: 999n, sessions: 100 }),
    // a, period 2: the interior hop has no record: unusable.
    period(hopKey(0, 0), P, 2, { joules: 2000n, bytes: 1000n, sessions: 6 }),
    // b: J 3, 2, 0 and D 800 000, 1 200 000, 0 (a period with D = 0 is usable).
    period(hopKey(1, 0), P, 0, { joules: 3n, bytes: 800_000n, sessions: 7 }),
    period(hopKey(1, 0), P, 1, { joules: 2n, bytes: 1_200_000n, sessions: 7 }),
    period(hopKey(1, 0), P, 2, { joules: 0n, bytes: 0n, sessions: 7 }),
  ];
  const account = energyAccount({ policies: [{ at: 0n, policy }], from: 0n, to: S(3), records });

  it('sums each pathway over its usable periods', () => {
    const a = path(account, 'a');
    expect([a.periods, a.periods_unusable, a.joules_uj, a.delivery]).toEqual([2, 1, 6500n, 2500n]);
    // Edge hops' sessions over usable periods: 4 + 5.
    expect(a.sessions_served).toBe(9n);
    const b = path(account, 'b');
    expect([b.periods, b.periods_unusable, b.joules_uj, b.delivery]).toEqual([
      3,
      0,
      5n,
      2_000_000n,
    ]);
    expect(b.sessions_served).toBe(21n);
  });

  it('states the average in pJ per byte, a tie rounded to even', () => {
    // 6500 × 10^6 / 2500 = 2 600 000; 5 × 10^6 / 2 000 000 = 2.5 → 2 (half to even).
    expect(path(account, 'a').average_pj_per_unit).toBe(2_600_000n);
    expect(path(account, 'b').average_pj_per_unit).toBe(2n);
  });

  it('states no marginal view below 30 periods, and no saving in that view', () => {
    for (const p of account.pathways) {
      expect(p.marginal_why).toBe('too_few_periods');
      expect([p.marginal_pj_per_unit, p.idle_uj_per_period, p.r2]).toEqual([null, null, null]);
      expect(p.marginal_ci95_pj_per_unit).toBeNull();
      expect(p.sessions_placed).toBeNull();
    }
    expect([account.saved_marginal_uj, account.saved_marginal_ci95_uj]).toEqual([null, null]);
  });

  it('saves, on average, (J_a/D_a − J_b/D_b) × D_b', () => {
    // (6500/2500 − 5/2 000 000) × 2 000 000 = 5 200 000 − 5.
    expect(account.saved_average_uj).toBe(5_199_995n);
    expect(account.baseline).toEqual({ pathway: 'a', why: 'initial' });
  });

  it('is written canonically, exact integers as decimal strings (RFC 8785)', () => {
    const a =
      '{"average_pj_per_unit":"2600000","delivery":"2500","id":"a","idle_uj_per_period":null,' +
      '"joules_uj":"6500","marginal_ci95_pj_per_unit":null,"marginal_pj_per_unit":null,' +
      '"marginal_why":"too_few_periods","periods":2,"periods_unusable":1,"r2":null,' +
      '"sessions_placed":null,"sessions_served":"9"}';
    const b =
      '{"average_pj_per_unit":"2","delivery":"2000000","id":"b","idle_uj_per_period":null,' +
      '"joules_uj":"5","marginal_ci95_pj_per_unit":null,"marginal_pj_per_unit":null,' +
      '"marginal_why":"too_few_periods","periods":3,"periods_unusable":0,"r2":null,' +
      '"sessions_placed":null,"sessions_served":"21"}';
    expect(writeAccount(account)).toBe(
      `{"baseline":{"pathway":"a","why":"initial"},"basis":1,"from":"0","pathways":[${a},${b}],` +
        `"period_us":"1000000","room":"${ROOM_HEX}","saved_average_uj":"5199995",` +
        '"saved_marginal_ci95_uj":null,"saved_marginal_uj":null,"to":"3000000"}',
    );
  });
});

/** 30 periods of pathway `p` (one edge hop) with J = a + b·D exactly, D = step × (k + 1). */
function line(p: number, n: number, a: bigint, b: bigint, step: bigint, first = 0) {
  return Array.from({ length: n }, (_, k) => {
    const d = step * BigInt(k + 1);
    return period(hopKey(p, 0), P, first + k, { joules: a + b * d, bytes: d });
  });
}

describe('the marginal view (item 1d)', () => {
  const two = policyOf([
    { id: 'x', places: [1] },
    { id: 'y', places: [1] },
  ]);
  const at = (policy = two) => [{ at: 0n, policy }];

  it('fits J = a + b·D exactly: b, the idle joules, a closed interval and r² = 1', () => {
    // x: D = 1000 (k + 1), J = 5000 + 2 D; y: D = 500 (k + 1), J = 1000 + D.
    const records = [...line(0, 30, 5000n, 2n, 1000n), ...line(1, 30, 1000n, 1n, 500n)];
    const a = energyAccount({ policies: at(), from: 0n, to: S(30), records });
    const x = path(a, 'x');
    expect([x.marginal_pj_per_unit, x.idle_uj_per_period, x.r2, x.marginal_why]).toEqual([
      2_000_000n,
      5000n,
      1,
      null,
    ]);
    expect(x.marginal_ci95_pj_per_unit).toEqual([2_000_000, 2_000_000]);
    // ΣJ = 30 × 5000 + 2 × 465 000 = 1 080 000, ΣD = 465 000: 2 322 580.645… → 2 322 581.
    expect(x.average_pj_per_unit).toBe(2_322_581n);
    expect(path(a, 'y').marginal_pj_per_unit).toBe(1_000_000n);
    // (b_x − b_y) × D_y = (2 − 1) × 232 500; the fits are exact, so the interval is closed.
    expect(a.saved_marginal_uj).toBe(232_500n);
    expect(a.saved_marginal_ci95_uj).toEqual([232_500, 232_500]);
    // (ΣJ_x/ΣD_x) × ΣD_y − ΣJ_y = 1 080 000 × 232 500 / 465 000 − 262 500 = 540 000 − 262 500.
    expect(a.saved_average_uj).toBe(277_500n);
  });

  it('states a saving with its sign: negative when delivery went to dearer pathways', () => {
    const records = [...line(0, 30, 5000n, 2n, 1000n), ...line(1, 30, 1000n, 1n, 500n)];
    const y = policyOf(
      [
        { id: 'x', places: [1] },
        { id: 'y', places: [1] },
      ],
      { initial: 1 },
    );
    const a = energyAccount({ policies: at(y), from: 0n, to: S(30), records });
    expect(a.baseline.pathway).toBe('y');
    // (b_y − b_x) × D_x = (1 − 2) × 465 000.
    expect(a.saved_marginal_uj).toBe(-465_000n);
    expect(a.saved_average_uj! < 0n).toBe(true);
  });

  it('is null below 30 usable periods (too_few_periods) or without variance in D (no_variance)', () => {
    const few = energyAccount({
      policies: at(),
      from: 0n,
      to: S(30),
      records: [...line(0, 29, 5000n, 2n, 1000n), ...line(1, 30, 1000n, 1n, 0n)],
    });
    expect(path(few, 'x').marginal_why).toBe('too_few_periods');
    expect(path(few, 'x').periods_unusable).toBe(1);
    // y: D = 0 every period: usable, no variance, and no average.
    const y = path(few, 'y');
    expect([y.periods, y.marginal_why, y.average_pj_per_unit]).toEqual([30, 'no_variance', null]);
    // D_y = 0, so y's missing b does not stop the marginal saving; x's does.
    expect(few.saved_marginal_uj).toBeNull();
  });

  it('states r² as null when every usable period has the same J, the slope 0', () => {
    const records = [
      ...Array.from({ length: 30 }, (_, k) =>
        period(hopKey(0, 0), P, k, { joules: 7000n, bytes: BigInt(1000 * (k + 1)) }),
      ),
    ];
    const a = energyAccount({ policies: at(), from: 0n, to: S(30), records });
    const x = path(a, 'x');
    expect([x.marginal_pj_per_unit, x.idle_uj_per_period, x.r2]).toEqual([0n, 7000n, null]);
    expect(x.marginal_ci95_pj_per_unit).toEqual([0, 0]);
  });

  it('agrees with the figures written out from their definitions on noisy data', () => {
    // A pseudo-random but fixed sequence: a linear congruential generator.
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const points: [bigint, bigint][][] = [[], []];
    const records = [];
    for (let k = 0; k < 40; k++) {
      for (const p of [0, 1]) {
        const d = BigInt(100_000 + (next() % 900_000));
        const j =
          BigInt(20_000_000 + (p + 1) * 40) * 1n +
          d * BigInt(40 + 20 * p) +
          BigInt(next() % 3_000_000);
        points[p]!.push([j, d]);
        records.push(period(hopKey(p, 0), P, k, { joules: j, bytes: d }));
      }
    }
    const a = energyAccount({ policies: at(), from: 0n, to: S(40), records });
    const refs = points.map((pts) => refPathway(pts));
    a.pathways.forEach((p, i) => {
      const r = refs[i]!;
      expect([p.average_pj_per_unit, p.marginal_pj_per_unit, p.idle_uj_per_period]).toEqual([
        r.average,
        r.marginal,
        r.idle,
      ]);
      expect(close(p.r2!, r.r2!)).toBe(true);
      expect(close(p.marginal_ci95_pj_per_unit![0], r.ci![0])).toBe(true);
      expect(close(p.marginal_ci95_pj_per_unit![1], r.ci![1])).toBe(true);
    });
    const s = refSavings(refs, 0);
    expect([a.saved_average_uj, a.saved_marginal_uj]).toEqual([s.average, s.marginal]);
    expect(close(a.saved_marginal_ci95_uj![0], s.ci![0])).toBe(true);
    expect(close(a.saved_marginal_ci95_uj![1], s.ci![1])).toBe(true);
  });
});

describe('exact beyond float64', () => {
  it('sums and fits J and D far beyond 2^53 exactly', () => {
    const policy = policyOf([
      { id: 'x', places: [1, 2] },
      { id: 'y', places: [1] },
    ]);
    const points: [bigint, bigint][][] = [[], []];
    const records = [];
    for (let k = 0; k < 35; k++) {
      const d = 2n ** 60n + BigInt(k * k) * 2n ** 40n;
      const j1 = 2n ** 100n + 3n * d;
      const j2 = BigInt(k % 3) * 2n ** 50n; // the interior hop: small, so J mixes both paths
      points[0]!.push([j1 + j2, d]);
      records.push(period(hopKey(0, 0), P, k, { joules: j1, bytes: d }));
      records.push(period(hopKey(0, 1), P, k, { joules: j2, bytes: 1n }));
      const dy = BigInt(1000 + k * 37);
      points[1]!.push([5n * dy + BigInt(k % 4), dy]);
      records.push(period(hopKey(1, 0), P, k, { joules: 5n * dy + BigInt(k % 4), bytes: dy }));
    }
    const a = energyAccount({ policies: [{ at: 0n, policy }], from: 0n, to: S(35), records });
    const refs = points.map((pts) => refPathway(pts));
    a.pathways.forEach((p, i) => {
      const r = refs[i]!;
      expect([p.joules_uj, p.delivery]).toEqual([r.J, r.D]);
      expect([p.average_pj_per_unit, p.marginal_pj_per_unit, p.idle_uj_per_period]).toEqual([
        r.average,
        r.marginal,
        r.idle,
      ]);
    });
    expect(a.saved_marginal_uj).toBe(refSavings(refs, 0).marginal);
  });
});

describe('a usable period (item 1b)', () => {
  const policy = policyOf([{ id: 'a', places: [1, 2] }]);
  const edge = hopKey(0, 0);
  const mid = hopKey(0, 1);
  const account = (records: ReturnType<typeof ev>[], to = S(2)) =>
    path(energyAccount({ policies: [{ at: 0n, policy }], from: 0n, to, records }), 'a');
  const both = (k: number, extra = {}) => [period(edge, P, k, extra), period(mid, P, k, extra)];

  it('needs every hop to tile the period, with records that may be shorter than it', () => {
    const halves = [
      ev(rec({ hop: mid, start: 0n, end: P / 2n, joules: 10n })),
      ev(rec({ hop: mid, start: P / 2n, end: P, joules: 20n })),
    ];
    const a = account([period(edge, P, 0, { joules: 100n }), ...halves, ...both(1)]);
    expect([a.periods, a.joules_uj]).toEqual([2, 130n + 2000n]);
    const gap = account([period(edge, P, 0), halves[0]!, ...both(1)]);
    expect(gap.periods).toBe(1);
  });

  it('counts a record given twice once', () => {
    const twice = account([...both(0), ...both(0), ...both(1)]);
    expect([twice.periods, twice.joules_uj, twice.delivery]).toEqual([2, 4000n, 20_000n]);
  });

  it('is unusable when two different records of a hop overlap in it', () => {
    const other = period(mid, P, 0, { joules: 999n });
    expect(account([...both(0), other, ...both(1)]).periods).toBe(1);
  });

  it('is unusable when a record crosses its bounds, for every period the record touches', () => {
    const across = ev(rec({ hop: mid, start: P / 2n, end: P + P / 2n }));
    const a = account([...both(0), ...both(1), across, ...both(2)], S(3));
    expect([a.periods, a.periods_unusable]).toEqual([1, 2]);
    // One that starts before the span and ends inside it: the span's first period.
    const early = ev(rec({ hop: mid, start: 0n, end: P + 1n }));
    const b = path(
      energyAccount({
        policies: [{ at: 0n, policy }],
        from: P,
        to: S(3),
        records: [early, ...both(1), ...both(2)],
      }),
      'a',
    );
    expect([b.periods, b.periods_unusable]).toEqual([1, 1]);
  });

  it('is unusable with the unmetered marker, or records of two classes', () => {
    const unmetered = [period(edge, P, 0), period(mid, P, 0, { cls: 0 }), ...both(1)];
    expect(account(unmetered).periods).toBe(1);
    const mixed = [period(edge, P, 0, { cls: 2 }), period(mid, P, 0, { cls: 4 }), ...both(1)];
    expect(account(mixed).periods).toBe(1);
  });

  it('passes over records of another room, of other hops, and outside the span', () => {
    const a = account([
      ...both(0),
      ...both(1),
      period(edge, P, 0, { room: new Uint8Array(32).fill(0xbb), joules: 5n }),
      period(hopKey(5, 0), P, 0),
      period(edge, P, 2),
      period(mid, P, 2),
    ]);
    expect([a.periods, a.joules_uj]).toEqual([2, 4000n]);
  });

  it('reads delivery on basis 2 as subscriber_us at the floor tier or above (§5.3)', () => {
    const us = [1n, 10n, 100n, 1000n, 0n, 0n, 0n, 0n];
    const b2 = policyOf([{ id: 'a', places: [1] }], { basis: 2, floor: 1 });
    const a = energyAccount({
      policies: [{ at: 0n, policy: b2 }],
      from: 0n,
      to: S(1),
      records: [period(edge, P, 0, { subscriber_us: us })],
    });
    expect(a.basis).toBe(2);
    expect(path(a, 'a').delivery).toBe(1110n);
  });
});

describe('the span and the policy in force (item 1a)', () => {
  const policy = policyOf([{ id: 'a', places: [1] }]);
  const run = (policies: { at: bigint; policy: typeof policy }[], from: bigint, to: bigint) => () =>
    energyAccount({ policies, from, to, records: [] });

  it('refuses a span that is not whole periods, or empty, in one line', () => {
    expect(run([{ at: 0n, policy }], 1n, S(2))).toThrow(
      "from (1 µs) is not a multiple of the policy's period of 1000000 µs: a span is whole periods, such as from 0 or 1000000",
    );
    expect(run([{ at: 0n, policy }], 0n, S(2) + 5n)).toThrow(/^to \(2000005 µs\)/);
    expect(run([{ at: 0n, policy }], S(2), S(2))).toThrow(/the span is empty/);
  });

  it("refuses a span over which P, basis, initial or a pathway's hops change, naming the instant", () => {
    const changes: [typeof policy, string][] = [
      [policyOf([{ id: 'a', places: [1] }], { period_us: 500_000n }), 'period_us'],
      [policyOf([{ id: 'a', places: [1] }], { basis: 2 }), 'basis'],
      [policyOf([{ id: 'a', places: [1], keyBase: 7 }]), 'pathways.a.hops'],
      [
        policyOf(
          [
            { id: 'a', places: [1] },
            { id: 'b', places: [1] },
          ],
          { initial: 1 },
        ),
        'initial, pathways.b',
      ],
    ];
    for (const [later, what] of changes) {
      const go = run(
        [
          { at: 0n, policy },
          { at: S(5) + 7n, policy: later },
        ],
        0n,
        S(10),
      );
      expect(go).toThrow(`the policy in force changes ${what} at 5000007 µs, inside the span`);
      try {
        go();
      } catch (e) {
        expect((e as { instant: bigint }).instant).toBe(S(5) + 7n);
      }
    }
  });

  it('accepts what a live rotation changes (a capacity), and takes the policy in force at to', () => {
    const rotated = policyOf([{ id: 'a', places: [1], capacity: 9 }]);
    const records = [period(hopKey(0, 0), P, 0)];
    const a = energyAccount({
      policies: [
        { at: 0n, policy },
        { at: S(1) / 2n, policy: rotated },
      ],
      from: 0n,
      to: S(1),
      records,
    });
    expect(path(a, 'a').periods).toBe(1);
    // A change before the span or after it is no change over it.
    const five = policyOf([{ id: 'a', places: [1] }], { period_us: 500_000n });
    const later = run(
      [
        { at: 0n, policy },
        { at: S(10), policy: five },
      ],
      0n,
      S(5),
    );
    expect(later).not.toThrow();
  });
});

describe('sessions placed (item 1e)', () => {
  const policy = policyOf([
    { id: 'a', places: [1] },
    { id: 'b', places: [1] },
  ]);
  const Q = 10_000_000n; // P = 10 s: midpoints at 15 s, 25 s, 35 s over [10 s, 40 s)
  const q = policyOf(
    [
      { id: 'a', places: [1] },
      { id: 'b', places: [1] },
    ],
    { period_us: Q },
  );
  const recs = (skip?: [number, number]) =>
    [1, 2, 3].flatMap((k) =>
      [0, 1]
        .filter((p) => !(skip !== undefined && skip[0] === p && skip[1] === k))
        .map((p) => period(hopKey(p, 0), Q, k, { sessions: 2 })),
    );
  const s = (x: number) => BigInt(x) * 1_000_000n;
  // A at 4 s on a (counts until 4 + 10 + 2 = 16 s); B at 15 s exactly, a midpoint, on b (until
  // 27 s); A again at 20 s on b (until 32 s); C after the last midpoint.
  const decisions = [
    decision(q, s(4), 1, 0),
    decision(q, s(15), 2, 1),
    decision(q, s(20), 1, 1),
    decision(q, s(35) + 1n, 3, 0),
  ];
  const account = (records = recs(), ds = decisions) =>
    energyAccount({
      policies: [{ at: 0n, policy: q }],
      from: s(10),
      to: s(40),
      records,
      decisions: ds,
      graceS: 2,
    });

  it('counts the sessions at each usable period’s midpoint by the load replay', () => {
    // At 15 s: A on a, B on b (exactly at the midpoint: it counts). At 25 s: A and B on b.
    const a = account();
    expect(path(a, 'a').sessions_placed).toBe(1n);
    expect(path(a, 'b').sessions_placed).toBe(3n);
    expect(path(a, 'b').sessions_served).toBe(6n);
  });

  it('counts only over the usable periods', () => {
    expect(path(account(recs([1, 2])), 'b').sessions_placed).toBe(1n);
  });

  it('is 0 with no decision given, null without decisions', () => {
    expect(path(account(recs(), []), 'b').sessions_placed).toBe(0n);
    const none = energyAccount({
      policies: [{ at: 0n, policy }],
      from: 0n,
      to: S(1),
      records: [],
    });
    expect(none.pathways.map((p) => p.sessions_placed)).toEqual([null, null]);
    expect(accountJson(none).pathways[0]!.sessions_served).toBe('0');
  });
});
