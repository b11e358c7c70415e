// A step of the room clock, read: which periods it leaves unmetered and which without traffic,
// against the stretches of the room clock lived (the monotonic time between the two wakes, lived
// before the step or after it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readStep } from '../../src/agent/steps.js';

const P = 1_000_000n;
const B0 = 1_800_000_000_000_000n;

/** The periods [start, start + P) meeting [from, to), and those within it. */
function periods(from: bigint, to: bigint) {
  const meet: bigint[] = [];
  const within: bigint[] = [];
  for (let s = (from / P) * P - P; s < to + P; s += P) {
    if (s < to && s + P > from) meet.push(s);
    if (s >= from && s + P <= to) within.push(s);
  }
  return { meet, within };
}

describe('a step of the room clock', () => {
  it('forward 10 min in 0.3 s: every period it crossed unmetered, those not lived without traffic', () => {
    const before = { at: B0 + 400_000n, mono: 5n * P };
    const after = { at: B0 + 600n * P + 700_000n, mono: 5n * P + 300_000n };
    const s = readStep({ before, after }, P);
    expect(s.forward).toBe(true);
    expect(s.size).toBe(600n * P);
    // Lived: [B0 + 0.4 s, B0 + 0.7 s] and [B0 + 600.4 s, B0 + 600.7 s]: periods 1 to 599 not.
    expect(s.notLived).toEqual({ from: B0 + P, to: B0 + 600n * P, periods: 599n });
    expect(s.marks.map((m) => [m.from, m.to, m.noTraffic])).toEqual([
      [before.at, after.at, false],
      [B0 + P, B0 + 600n * P, true],
    ]);
    expect(s.marks[0]!.why).toBe('the room clock stepped forward by 10 min across the period');
  });

  it('back 10 min: the periods it may have passed twice, whole, without traffic', () => {
    const before = { at: B0 + 600n * P + 400_000n, mono: 5n * P };
    const after = { at: B0 + 700_000n, mono: 5n * P + 300_000n };
    const s = readStep({ before, after }, P);
    expect(s.forward).toBe(false);
    expect(s.size).toBe(600n * P);
    expect(s.notLived).toBeUndefined();
    // [after − 0.3 s, before + 0.3 s]: periods 0 to 600.
    expect(s.marks.map((m) => [m.from, m.to, m.noTraffic])).toEqual([[B0, B0 + 601n * P, true]]);
    expect(s.marks[0]!.why).toBe('the room clock stepped back by 10 min across the period');
  });

  it('any step: no period lived is left without traffic, every period it crossed is unmetered', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 50n * P }),
        fc.bigInt({ min: 0n, max: 3n * P }),
        fc.bigInt({ min: -40n * P, max: 40n * P }),
        (at, dm, jump) => {
          const before = { at: B0 + at, mono: 0n };
          const after = { at: B0 + at + dm + jump, mono: dm };
          const s = readStep({ before, after }, P);
          expect(s.forward).toBe(jump > 0n);
          expect(s.size).toBe(jump > 0n ? jump : -jump);
          // The room clock lived [before, before + Δm] and [after − Δm, after], and goes on from
          // after: a period lived is one that either stretch meets for some time, or the
          // current one.
          const lived = (p: bigint) =>
            (p < before.at + dm && p + P > before.at) ||
            (p < after.at && p + P > after.at - dm) ||
            (p <= after.at && p + P > after.at);
          const unmetered = (p: bigint) => s.marks.some((m) => p < m.to && p + P > m.from);
          const noTraffic = (p: bigint) =>
            s.marks.some((m) => m.noTraffic && p >= m.from && p + P <= m.to);
          const lo = before.at < after.at ? before.at : after.at;
          const hi = before.at < after.at ? after.at : before.at;
          for (const p of periods(lo - dm, hi + dm).meet) {
            if (jump > 0n) {
              // Forward: what it crossed is unmetered; what was lived keeps its traffic.
              if (p < after.at && p + P > before.at) expect(unmetered(p)).toBe(true);
              if (noTraffic(p)) expect(lived(p)).toBe(false);
              if (!lived(p) && p >= before.at && p + P <= after.at) expect(noTraffic(p)).toBe(true);
            } else {
              // Back: every period it may have passed twice is unmetered, without traffic.
              if (p + P > after.at - dm && p <= before.at + dm) {
                expect(unmetered(p)).toBe(true);
                expect(noTraffic(p)).toBe(true);
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
