// The loads stated at each second: what a decision at the start of the second states, kept for
// the last minutes, and recomputed here by replaying the placements (docs/audit.md, the load
// replay) independently of the session table.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoadHistory } from '../../src/engine/load-history.js';
import { SessionTable } from '../../src/sessions.js';

const IDS = ['a', 'b'] as const;
/** The session table counts in µs of the room clock; the history in its seconds. */
const US = 1_000_000;

function history(sessions: SessionTable, seconds = 120, peers?: number[]) {
  return new LoadHistory({ sessions, ids: () => IDS, peers: () => peers }, seconds);
}

const session = (n: number): Uint8Array => {
  const s = new Uint8Array(16);
  new DataView(s.buffer).setUint32(0, n);
  return s;
};

describe('LoadHistory', () => {
  it('states the load at the start of each second, before that second changes the table', () => {
    const t = new SessionTable(IDS);
    const h = history(t);
    h.advance(100);
    t.place(session(1), 0, 103 * US); // counts at 100, 101, 102
    t.place(session(2), 1, 101 * US);
    h.advance(101); // a decision at 101 (placing nothing)
    t.place(session(3), 0, 110 * US);
    expect([100, 101, 102, 103].map((s) => h.at(s, 'a', 103))).toEqual([0, 1, 2, 1]);
    expect([100, 101, 102].map((s) => h.at(s, 'b', 103))).toEqual([0, 0, 0]);
  });

  it('knows nothing before its first second, past its length, or of a pathway it never counted', () => {
    const t = new SessionTable(IDS);
    const h = history(t, 10);
    h.advance(50);
    expect(h.at(49, 'a', 50)).toBeUndefined();
    expect(h.at(50, 'z', 50)).toBeUndefined();
    expect(h.at(50, 'a', 70)).toBeUndefined(); // 50 is more than 10 s before 70
    expect(h.at(65, 'a', 70)).toBe(0);
    expect(h.at(71, 'a', 70)).toBeUndefined(); // not come yet
  });

  it("adds the peers' latest loads", () => {
    const t = new SessionTable(IDS);
    const h = history(t, 10, [5, 6]);
    t.place(session(1), 1, 20 * US);
    expect(h.at(10, 'b', 10)).toBe(7);
  });

  it('agrees with a replay of the placements at every second it holds', () => {
    // A placement: at second `at`, session `s` to pathway `p` until second `until`.
    const placement = fc.record({
      gap: fc.integer({ min: 0, max: 3 }),
      s: fc.integer({ min: 0, max: 6 }),
      p: fc.integer({ min: 0, max: 1 }),
      ttl: fc.integer({ min: 1, max: 5 }),
    });
    fc.assert(
      fc.property(fc.array(placement, { maxLength: 40 }), (plan) => {
        const t = new SessionTable(IDS);
        const h = history(t, 1000);
        const done: { at: number; s: number; p: number; until: number }[] = [];
        let now = 1000;
        for (const x of plan) {
          now += x.gap;
          h.advance(now);
          t.current(session(x.s), now * US); // as a decision does: drops an expired session
          t.loadsAt(now * US);
          t.place(session(x.s), x.p, (now + x.ttl) * US);
          done.push({ at: now, s: x.s, p: x.p, until: now + x.ttl });
        }
        const end = now + 6;
        // Known from the first second recorded on (`end` when nothing was placed).
        const first = done[0]?.at ?? end;
        expect(h.at(first - 1, 'a', end)).toBeUndefined();
        for (let second = first; second <= end; second++) {
          // The replay: each session's latest placement before the second, while it counts.
          const latest = new Map<number, { p: number; until: number }>();
          for (const d of done) if (d.at < second) latest.set(d.s, d);
          const want = [0, 0];
          for (const l of latest.values()) if (second < l.until) want[l.p]!++;
          expect([h.at(second, 'a', end), h.at(second, 'b', end)]).toEqual(want);
        }
      }),
    );
  });
});
