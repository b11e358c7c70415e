// The end wheel against a plain count: after any placements and removals of ends and any moves
// of the clock, each pathway's `gone` is the number of ends held at or before the clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EndWheel } from '../src/end-wheel.js';

const S = 1_000_000;

type Step =
  | { readonly op: 'add'; readonly pathway: number; readonly end: number }
  | { readonly op: 'remove'; readonly pick: number }
  | { readonly op: 'advance'; readonly by: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('add' as const),
    pathway: fc.integer({ min: 0, max: 3 }),
    end: fc.integer({ min: 0, max: 6 * S }),
  }),
  fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 2 * S }) }),
);

describe('EndWheel', () => {
  it('counts as gone exactly the ends held at or before the clock', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const wheel = new EndWheel();
        const held: { pathway: number; end: number }[] = [];
        let now = 0;
        wheel.advance(now);
        for (const s of steps) {
          if (s.op === 'add') {
            wheel.add(s.pathway, s.end, 1);
            held.push({ pathway: s.pathway, end: s.end });
          } else if (s.op === 'remove' && held.length > 0) {
            const [h] = held.splice(s.pick % held.length, 1);
            wheel.add(h!.pathway, h!.end, -1);
          } else if (s.op === 'advance') {
            now += s.by;
            wheel.advance(now);
          }
        }
        const expected = [0, 0, 0, 0];
        for (const h of held) if (h.end <= now) expected[h.pathway]!++;
        expect(Array.from(wheel.gone.subarray(0, 4))).toEqual(expected);
      }),
    );
  });

  it('counts the ends again after a recount, and none after a reset', () => {
    const wheel = new EndWheel();
    wheel.advance(S);
    wheel.add(0, 2 * S, 1);
    wheel.add(1, S + 10, 1);
    wheel.recount(() => {
      wheel.add(1, S + 20, 1);
      wheel.add(1, S + 5, 1);
    });
    wheel.advance(S + 10);
    expect(Array.from(wheel.gone.subarray(0, 2))).toEqual([0, 1]);
    wheel.advance(3 * S);
    expect(Array.from(wheel.gone.subarray(0, 2))).toEqual([0, 2]);
    expect(wheel.bytes).toEqual(0);
    wheel.add(0, 4 * S, 1);
    expect(wheel.bytes > 0).toEqual(true);
    wheel.reset();
    expect(wheel.bytes).toEqual(0);
    expect(Array.from(wheel.gone.subarray(0, 2))).toEqual([0, 0]);
  });
});
