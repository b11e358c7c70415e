// The load replay against the rule of docs/audit.md written as plainly as it reads: for random
// decision sequences (instants that straddle second boundaries, sessions placed again, policies
// that keep, drop and reorder pathway IDs), each decision's replayed loads are the reference's.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadReplay } from '../src/index.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** A decision as the replay reads it. */
interface Step {
  readonly t: bigint;
  readonly session: number;
  readonly policy: number;
  readonly first: number;
  readonly ttl: number;
}

/** The policies of the sequences: pathway IDs kept, dropped, added and reordered. */
const POLICIES: readonly (readonly string[])[] = [
  ['a', 'b', 'c'],
  ['c', 'a', 'b'],
  ['a', 'c'],
  ['b', 'd', 'a', 'c'],
  ['d'],
  ['b', 'a', 'c'],
];

/**
 * The rule, decision by decision, from the whole history: a session counts at decision `i` at
 * the pathway ID of its latest placement `j < i` when `t_i < t_j + (ttl_j + grace) × 10^6` and
 * every change of policy at a decision `k` in `(j, i]` has that ID.
 */
function reference(steps: readonly Step[], graceS: number): number[][] {
  const grace = BigInt(graceS) * 1_000_000n;
  return steps.map((d, i) => {
    const ids = POLICIES[d.policy]!;
    const loads = ids.map(() => 0);
    const latest = new Map<number, number>();
    for (let j = 0; j < i; j++) latest.set(steps[j]!.session, j);
    for (const j of latest.values()) {
      const p = steps[j]!;
      if (!(d.t < p.t + BigInt(p.ttl) * 1_000_000n + grace)) continue;
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

/** Random decision sequences in ascending `t`: µs steps that cross seconds and hit ends. */
const sequences = fc
  .array(
    fc.record({
      dt: fc.oneof(
        fc.constant(0),
        // Steps that land on a placement's end exactly now and then.
        fc.constantFrom(250_000, 500_000, 1_000_000),
        fc.integer({ min: 1, max: 999_999 }),
        fc.integer({ min: 999_000, max: 1_001_000 }),
        fc.integer({ min: 0, max: 9_000_000 }),
      ),
      session: fc.nat(12),
      change: fc.nat(5),
      policy: fc.nat(POLICIES.length - 1),
      first: fc.nat(3),
      ttl: fc.integer({ min: 1, max: 4 }),
    }),
    { maxLength: 120 },
  )
  .map((raw) => {
    let t = 1_800_000_000_999_000n;
    let policy = 0;
    return raw.map((r): Step => {
      t += BigInt(r.dt);
      // A change of policy at one decision in six.
      if (r.change === 0) policy = r.policy;
      return {
        t,
        session: r.session,
        policy,
        first: r.first % POLICIES[policy]!.length,
        ttl: r.ttl,
      };
    });
  });

describe('LoadReplay', () => {
  it('gives the reference’s loads for every decision', () => {
    fc.assert(
      fc.property(sequences, fc.nat(3), (steps, graceS) => {
        const want = reference(steps, graceS);
        const replay = new LoadReplay(graceS);
        steps.forEach((d, i) => {
          replay.follow(`policy-${d.policy}`, POLICIES[d.policy]!);
          replay.advance(d.t);
          expect(Array.from(replay.loads())).toEqual(want[i]);
          replay.place(`s${d.session}`, d.first, d.t, d.ttl);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('hands back the sessions that count, each at its pathway ID until its end, with its tag', () => {
    fc.assert(
      fc.property(sequences, fc.nat(3), fc.nat(9_000_000), (steps, graceS, after) => {
        const replay = new LoadReplay(graceS);
        for (const d of steps) {
          replay.follow(`policy-${d.policy}`, POLICIES[d.policy]!);
          replay.advance(d.t);
          replay.place(`s${d.session}`, d.first, d.t, d.ttl, d.session * 10 + d.first);
        }
        // An instant after the last decision: the reference's loads at a decision there, under
        // the last decision's policy, are the placements handed back counted by ID.
        const last = steps[steps.length - 1];
        const at = (last?.t ?? 0n) + BigInt(after);
        replay.advance(at);
        const probe: Step = { t: at, session: -1, policy: last?.policy ?? 0, first: 0, ttl: 1 };
        const want = reference([...steps, probe], graceS)[steps.length]!;
        const ids = POLICIES[probe.policy]!;
        const got = ids.map(() => 0);
        const seen = new Set<string>();
        for (const p of replay.placements()) {
          expect(seen.has(p.session)).toBe(false);
          seen.add(p.session);
          expect(p.end > at).toBe(true);
          // Its latest placement: the pathway, end and tag of the session's last decision.
          const n = Number(p.session.slice(1));
          const latest = steps.filter((d) => d.session === n).pop()!;
          expect(p.pathway).toBe(POLICIES[latest.policy]![latest.first]);
          expect(p.end).toBe(latest.t + BigInt(latest.ttl + graceS) * 1_000_000n);
          expect(p.tag).toBe(n * 10 + latest.first);
          expect(ids).toContain(p.pathway);
          got[ids.indexOf(p.pathway)]!++;
        }
        expect(got).toEqual(want);
      }),
      { numRuns: RUNS },
    );
  });

  it('counts a session until its end exactly, to the µs, across a second', () => {
    const replay = new LoadReplay(2);
    replay.follow('p', ['a']);
    replay.advance(1_000_400_000n);
    replay.place('s', 0, 1_000_400_000n, 3);
    // Its end: 1 000.4 s + 5 s = 1 005.4 s.
    replay.advance(1_005_399_999n);
    expect(Array.from(replay.loads())).toEqual([1]);
    replay.advance(1_005_400_000n);
    expect(Array.from(replay.loads())).toEqual([0]);
  });

  it('keeps a session at its pathway’s ID across a change of policy, drops it where the ID is gone', () => {
    const replay = new LoadReplay(10);
    replay.follow('p1', ['a', 'b', 'c']);
    replay.advance(0n);
    replay.place('x', 0, 0n, 5);
    replay.place('y', 1, 0n, 5);
    replay.follow('p2', ['b', 'a']);
    replay.advance(1n);
    expect(Array.from(replay.loads())).toEqual([1, 1]);
    replay.follow('p3', ['a', 'c']);
    expect(Array.from(replay.loads())).toEqual([1, 0]);
    // Back to a policy with `b`: `y` stopped counting for good.
    replay.follow('p1', ['a', 'b', 'c']);
    expect(Array.from(replay.loads())).toEqual([1, 0, 0]);
  });

  it('refuses decisions out of order', () => {
    const replay = new LoadReplay(0);
    replay.advance(5n);
    expect(() => replay.advance(4n)).toThrow(RangeError);
  });
});
