import { STATUS } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderPathways, type RuleFigure, rankOf } from '../src/index.js';
import { figureArb, policyArb } from './helpers/arbitraries.js';
import { naiveOrder } from './helpers/reference.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

const inputArb = policyArb(12).chain((policy) =>
  fc.record({
    policy: fc.constant(policy),
    figures: fc.array(figureArb, {
      minLength: policy.pathways.length,
      maxLength: policy.pathways.length,
    }),
  }),
);

const NO_FIGURE: RuleFigure = { status: STATUS.stale, class: 0, joules: 0n, delivery: 0n };

describe('§6.2 guarantees (properties)', () => {
  it('the order is the naive reference order (continued fractions, insertion sort)', () => {
    fc.assert(
      fc.property(inputArb, ({ policy, figures }) => {
        expect(orderPathways(policy, figures)).toEqual(naiveOrder(policy, figures));
      }),
      { numRuns: RUNS },
    );
  });

  it('a pathway with no figure never precedes one with a figure', () => {
    fc.assert(
      fc.property(inputArb, ({ policy, figures }) => {
        const order = orderPathways(policy, figures);
        const firstUnknown = order.findIndex((i) => figures[i]!.status !== STATUS.figure);
        if (firstUnknown >= 0) {
          for (const i of order.slice(firstUnknown))
            expect(figures[i]!.status).not.toBe(STATUS.figure);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('turning a pathway’s figure into no figure never moves it earlier', () => {
    fc.assert(
      fc.property(inputArb, fc.nat(), ({ policy, figures }, pick) => {
        const p = pick % figures.length;
        const before = orderPathways(policy, figures).indexOf(p);
        const changed = figures.map((f, i) => (i === p ? NO_FIGURE : f));
        expect(orderPathways(policy, changed).indexOf(p)).toBeGreaterThanOrEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('figures compare only within a class: changing one pathway’s J and D moves it only among its class', () => {
    fc.assert(
      fc.property(
        inputArb,
        fc.nat(),
        fc.bigInt({ min: 1n, max: 1n << 100n }),
        fc.bigInt({ min: 1n, max: 1n << 100n }),
        ({ policy, figures }, pick, joules, delivery) => {
          const p = pick % figures.length;
          const fp = figures[p]!;
          if (fp.status !== STATUS.figure) return;
          const changed = figures.map((f, i) => (i === p ? { ...f, joules, delivery } : f));
          const pos1 = new Map(orderPathways(policy, figures).map((i, k) => [i, k]));
          const pos2 = new Map(orderPathways(policy, changed).map((i, k) => [i, k]));
          for (let x = 0; x < figures.length; x++) {
            for (let y = 0; y < figures.length; y++) {
              if (x === y) continue;
              const samePair = x !== p && y !== p;
              const acrossClass =
                (x === p || y === p) &&
                (figures[x]!.status !== STATUS.figure ||
                  figures[y]!.status !== STATUS.figure ||
                  figures[x]!.class !== figures[y]!.class);
              if (samePair || acrossClass) {
                expect(pos1.get(x)! < pos1.get(y)!).toBe(pos2.get(x)! < pos2.get(y)!);
              }
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('across classes the order depends only on the class (rank), never on the figures', () => {
    fc.assert(
      fc.property(inputArb, ({ policy, figures }) => {
        const order = orderPathways(policy, figures);
        const ranks = order.map((i) => rankOf(figures[i]!));
        for (let k = 1; k < ranks.length; k++)
          expect(ranks[k]!).toBeGreaterThanOrEqual(ranks[k - 1]!);
      }),
      { numRuns: RUNS },
    );
  });
});
