import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../src/sessions.js';

const IDS3 = ['a', 'b', 'c'];
const IDS2 = ['a', 'b'];

function session(n: number): Uint8Array {
  const s = new Uint8Array(16);
  new DataView(s.buffer).setUint32(0, n, true);
  new DataView(s.buffer).setUint32(12, n ^ 0x5a5a5a5a, true);
  return s;
}

describe('SessionTable', () => {
  it('counts, moves and expires sessions', () => {
    const t = new SessionTable(IDS3);
    expect(t.current(session(1), 0)).toBe(-1);
    t.place(session(1), 0, 10);
    t.place(session(2), 0, 10);
    t.place(session(3), 2, 20);
    expect(Array.from(t.loads)).toEqual([2, 0, 1]);
    t.place(session(1), 1, 15);
    expect(Array.from(t.loads)).toEqual([1, 1, 1]);
    expect(t.current(session(1), 14)).toBe(1);
    // Expired at lookup: removed there and then.
    expect(t.current(session(1), 15)).toBe(-1);
    expect(Array.from(t.loads)).toEqual([1, 0, 1]);
    expect(t.sweep(1 << 20, 10)).toBe(1);
    expect(Array.from(t.loads)).toEqual([0, 0, 1]);
    expect(t.size).toBe(1);
  });

  it('states loads without the sessions whose expiry has come, swept or not', () => {
    const t = new SessionTable(IDS2);
    t.place(session(1), 0, 100);
    t.place(session(2), 0, 101);
    t.place(session(3), 1, 105);
    expect(Array.from(t.loadsAt(99))).toEqual([2, 1]);
    // At 100 session 1 no longer counts, though nothing looked it up or swept it.
    expect(Array.from(t.loadsAt(100))).toEqual([1, 1]);
    expect(t.size).toBe(3);
    // Placed again before its expiry: it counts until the new one.
    t.place(session(2), 1, 120);
    expect(Array.from(t.loadsAt(104))).toEqual([0, 2]);
    expect(Array.from(t.loadsAt(106))).toEqual([0, 1]);
    // Removing what no longer counts changes nothing; the sweep finds the two expired.
    expect(t.current(session(1), 106)).toBe(-1);
    expect(Array.from(t.loads)).toEqual([0, 2]);
    expect(t.sweep(1 << 20, 106)).toBe(1);
    expect(Array.from(t.loads)).toEqual([0, 1]);
    expect(Array.from(t.loadsAt(106))).toEqual([0, 1]);
    expect(Array.from(t.loadsAt(120))).toEqual([0, 0]);
    expect(t.size).toBe(1);
  });

  it('grows past 3/4 and keeps every session', () => {
    const t = new SessionTable(IDS2, { initialCapacity: 1024 });
    for (let i = 0; i < 10_000; i++) t.place(session(i), i % 2, 100);
    expect(t.slots).toBeGreaterThanOrEqual(16384);
    expect(t.size).toBe(10_000);
    expect(Array.from(t.loads)).toEqual([5000, 5000]);
    for (let i = 0; i < 10_000; i++) expect(t.current(session(i), 0)).toBe(i % 2);
  });

  it('refuses a new session past maxSessions', () => {
    const t = new SessionTable(['a'], { maxSessions: 2 });
    expect(t.place(session(1), 0, 9)).toBe(true);
    expect(t.place(session(2), 0, 9)).toBe(true);
    expect(t.place(session(3), 0, 9)).toBe(false);
    expect(t.place(session(1), 0, 9)).toBe(true);
    expect(t.size).toBe(2);
  });

  it('agrees with a Map model under any sequence of operations', () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant('place' as const), s: fc.nat(300), p: fc.nat(2), e: fc.nat(50) }),
      fc.record({ k: fc.constant('current' as const), s: fc.nat(300), now: fc.nat(50) }),
      fc.record({
        k: fc.constant('sweep' as const),
        budget: fc.integer({ min: 1, max: 3000 }),
        now: fc.nat(50),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const t = new SessionTable(IDS3, { initialCapacity: 16 });
        const model = new Map<number, { p: number; e: number }>();
        const loads = () => {
          const l = [0, 0, 0];
          for (const v of model.values()) l[v.p]!++;
          return l;
        };
        for (const o of ops) {
          if (o.k === 'place') {
            t.place(session(o.s), o.p, o.e);
            model.set(o.s, { p: o.p, e: o.e });
          } else if (o.k === 'current') {
            const m = model.get(o.s);
            const want = m === undefined || m.e <= o.now ? -1 : m.p;
            if (m !== undefined && m.e <= o.now) model.delete(o.s);
            expect(t.current(session(o.s), o.now)).toBe(want);
          } else {
            t.sweep(o.budget, o.now);
            // A sweep removes only expired sessions; a full pass removes them all.
            if (o.budget >= t.slots) {
              for (const [k, v] of model) if (v.e <= o.now) model.delete(k);
            } else {
              // Partial: reconcile the model with what the table still holds.
              for (const [k, v] of model) {
                if (v.e <= o.now && t.current(session(k), 0) === -1) model.delete(k);
              }
            }
          }
          expect(Array.from(t.loads)).toEqual(loads());
          expect(t.size).toBe(model.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('SessionTable in µs', () => {
  const S = 1_800_000_000_000_000;

  it('counts a session until its end to the µs, whichever second it falls in', () => {
    const t = new SessionTable(IDS2);
    // Ends just before, at and just after a second boundary, and inside a second.
    t.place(session(1), 0, S + 999_999);
    t.place(session(2), 0, S + 1_000_000);
    t.place(session(3), 1, S + 1_000_001);
    t.place(session(4), 1, S + 1_500_000);
    expect(Array.from(t.loadsAt(S + 999_998))).toEqual([2, 2]);
    expect(Array.from(t.loadsAt(S + 999_999))).toEqual([1, 2]);
    expect(Array.from(t.loadsAt(S + 1_000_000))).toEqual([0, 2]);
    expect(Array.from(t.loadsAt(S + 1_000_001))).toEqual([0, 1]);
    // Placed again before its end, in the second the clock is in: it counts until the new end.
    t.place(session(4), 0, S + 3_000_000);
    expect(Array.from(t.loadsAt(S + 1_500_000))).toEqual([1, 0]);
    expect(Array.from(t.loadsAt(S + 2_999_999))).toEqual([1, 0]);
    expect(Array.from(t.loadsAt(S + 3_000_000))).toEqual([0, 0]);
    expect(t.size).toBe(4);
    expect(t.sweep(1 << 20, S + 3_000_000)).toBe(4);
    expect(Array.from(t.loads)).toEqual([0, 0]);
  });

  it('keeps the loads exact for many sessions whose ends straddle seconds', () => {
    const t = new SessionTable(IDS3);
    const ends: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const end = S + ((i * 7919) % 5_000_000);
      ends.push(end);
      t.place(session(i), i % 3, end);
    }
    for (let now = S - 1; now < S + 5_100_000; now += 123_457) {
      const want = [0, 0, 0];
      ends.forEach((e, i) => {
        if (now < e) want[i % 3]!++;
      });
      expect(Array.from(t.loadsAt(now))).toEqual(want);
    }
  });
});

describe('SessionTable.follow', () => {
  it('moves each session to its pathway’s new index and drops a removed pathway’s', () => {
    const t = new SessionTable(IDS3);
    for (let i = 0; i < 3000; i++) t.place(session(i), i % 3, 100);
    // a → 1, b removed, c → 0.
    t.follow(['c', 'a']);
    expect(t.ids).toEqual(['c', 'a']);
    expect(Array.from(t.loadsAt(0, ['c', 'a']))).toEqual([1000, 1000]);
    expect(t.size).toBe(2000);
    for (let i = 0; i < 3000; i++) {
      expect(t.current(session(i), 0)).toBe([1, -1, 0][i % 3]);
    }
    // Back to a policy with b: its sessions stopped counting for good.
    t.follow(IDS3);
    expect(Array.from(t.loadsAt(0, IDS3))).toEqual([1000, 0, 1000]);
    // Ends are kept: the sessions still lapse when they would have.
    expect(Array.from(t.loadsAt(100, IDS3))).toEqual([0, 0, 0]);
    expect(t.sweep(1 << 20, 100)).toBe(2000);
  });

  it('drops nothing for a policy put in force and undone before any decision', () => {
    const t = new SessionTable(IDS3);
    for (let i = 0; i < 30; i++) t.place(session(i), i % 3, 100);
    // A rotation shows the new policy's pathways, by ID; the count stays as it is.
    t.show(['c', 'a']);
    expect(Array.from(t.loads)).toEqual([10, 10]);
    expect(Array.from(t.loadsAt(1))).toEqual([10, 10]);
    t.show(IDS3);
    t.follow(['a', 'b', 'c']);
    expect(Array.from(t.loadsAt(1))).toEqual([10, 10, 10]);
  });

  it('refuses IDs a table cannot count', () => {
    const t = new SessionTable(IDS2);
    expect(() => t.follow([])).toThrow(RangeError);
    expect(() => new SessionTable([])).toThrow(RangeError);
    expect(() => t.place(session(1), 2, 5)).toThrow(RangeError);
    expect(() => t.place(session(1), 0, 0.5)).toThrow(RangeError);
  });
});

/**
 * The rule of docs/audit.md (the load replay), written as plainly as it reads, as the auditor's
 * tests write it: a session counts at decision `i` at the pathway ID of its latest placement
 * `j < i` when `t_i < t_j + (ttl_j + grace) × 10^6` and every change of policy at a decision `k`
 * in `(j, i]` has that ID.
 */
const POLICIES: readonly (readonly string[])[] = [
  ['a', 'b', 'c'],
  ['c', 'a', 'b'],
  ['a', 'c'],
  ['b', 'd', 'a', 'c'],
  ['d'],
  ['b', 'a', 'c'],
];

interface Step {
  readonly t: number;
  readonly session: number;
  readonly policy: number;
  readonly first: number;
  readonly ttl: number;
  /** A sweep of this many slots before the decision, at its `t`. */
  readonly sweep: number;
}

function reference(steps: readonly Step[], graceS: number): number[][] {
  return steps.map((d, i) => {
    const ids = POLICIES[d.policy]!;
    const loads = ids.map(() => 0);
    const latest = new Map<number, number>();
    for (let j = 0; j < i; j++) latest.set(steps[j]!.session, j);
    for (const j of latest.values()) {
      const p = steps[j]!;
      if (!(d.t < p.t + (p.ttl + graceS) * 1_000_000)) continue;
      const id = POLICIES[p.policy]![p.first]!;
      let kept = true;
      for (let k = j + 1; k <= i; k++) {
        const changed = steps[k]!.policy !== steps[k - 1]!.policy;
        if (changed && !POLICIES[steps[k]!.policy]!.includes(id)) kept = false;
      }
      const at = ids.indexOf(id);
      if (kept && at >= 0) loads[at]!++;
    }
    return loads;
  });
}

const sequences = fc
  .array(
    fc.record({
      dt: fc.oneof(
        fc.constant(0),
        fc.constantFrom(250_000, 500_000, 1_000_000),
        fc.integer({ min: 1, max: 999_999 }),
        fc.integer({ min: 999_000, max: 1_001_000 }),
        fc.integer({ min: 0, max: 9_000_000 }),
      ),
      session: fc.nat(40),
      change: fc.nat(5),
      policy: fc.nat(POLICIES.length - 1),
      first: fc.nat(3),
      ttl: fc.integer({ min: 1, max: 4 }),
      sweep: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })),
    }),
    { maxLength: 150 },
  )
  .map((raw) => {
    let t = 1_800_000_000_999_000;
    let policy = 0;
    return raw.map((r): Step => {
      t += r.dt;
      if (r.change === 0) policy = r.policy;
      return {
        t,
        session: r.session,
        policy,
        first: r.first % POLICIES[policy]!.length,
        ttl: r.ttl,
        sweep: r.sweep,
      };
    });
  });

describe('SessionTable against the rule', () => {
  it('states the reference’s loads at every decision, sweeps and rotations between', () => {
    fc.assert(
      fc.property(sequences, fc.nat(3), (steps, graceS) => {
        const want = reference(steps, graceS);
        const t = new SessionTable(POLICIES[0]!, { initialCapacity: 16 });
        steps.forEach((d, i) => {
          const ids = POLICIES[d.policy]!;
          // As the engine decides: the sweep now and then, the policy followed, the session
          // looked up, the loads stated, the session placed.
          if (d.sweep > 0) t.sweep(d.sweep, d.t);
          t.show(ids);
          t.follow(ids);
          t.current(session(d.session), d.t);
          expect(Array.from(t.loadsAt(d.t, ids))).toEqual(want[i]);
          t.place(session(d.session), d.first, d.t + (d.ttl + graceS) * 1_000_000);
        });
      }),
      { numRuns: 300 },
    );
  });
});
