import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../src/sessions.js';

function session(n: number): Uint8Array {
  const s = new Uint8Array(16);
  new DataView(s.buffer).setUint32(0, n, true);
  new DataView(s.buffer).setUint32(12, n ^ 0x5a5a5a5a, true);
  return s;
}

describe('SessionTable', () => {
  it('counts, moves and expires sessions', () => {
    const t = new SessionTable(3, { base: 0 });
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
    const t = new SessionTable(2, { base: 0 });
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
    const t = new SessionTable(2, { base: 0, initialCapacity: 1024 });
    for (let i = 0; i < 10_000; i++) t.place(session(i), i % 2, 100);
    expect(t.slots).toBeGreaterThanOrEqual(16384);
    expect(t.size).toBe(10_000);
    expect(Array.from(t.loads)).toEqual([5000, 5000]);
    for (let i = 0; i < 10_000; i++) expect(t.current(session(i), 0)).toBe(i % 2);
  });

  it('refuses a new session past maxSessions', () => {
    const t = new SessionTable(1, { base: 0, maxSessions: 2 });
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
        const t = new SessionTable(3, { base: 0, initialCapacity: 16 });
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

describe('SessionTable.remap', () => {
  it('moves each session to its pathway’s new index and drops a removed pathway’s', () => {
    const t = new SessionTable(3, { base: 0 });
    for (let i = 0; i < 3000; i++) t.place(session(i), i % 3, 100);
    // Pathway 0 → 1, 1 removed, 2 → 0; a table of 2 pathways.
    t.remap([1, -1, 0], 2);
    expect(Array.from(t.loads)).toEqual([1000, 1000]);
    expect(t.size).toBe(2000);
    for (let i = 0; i < 3000; i++) {
      expect(t.current(session(i), 0)).toBe([1, -1, 0][i % 3]);
    }
    // Expiries are kept: the sessions still lapse when they would have.
    expect(t.sweep(1 << 20, 100)).toBe(2000);
    expect(Array.from(t.loads)).toEqual([0, 0]);
  });

  it('refuses a map that does not fit the table', () => {
    const t = new SessionTable(2, { base: 0 });
    expect(() => t.remap([0], 2)).toThrow(RangeError);
    expect(() => t.remap([0, 2], 2)).toThrow(RangeError);
    expect(() => t.remap([0, 0.5], 2)).toThrow(RangeError);
  });
});
