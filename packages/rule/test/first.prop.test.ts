import { DECISION_REASON as R, STATUS } from '@wai-steering/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyRule } from '../src/index.js';
import { ruleInputArb } from './helpers/arbitraries.js';
import { naiveRule } from './helpers/reference.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

describe('§6.4, §6.5 (properties)', () => {
  it('the output is the naive reference rule’s (limits, first, reason, priority, TTL)', () => {
    fc.assert(
      fc.property(ruleInputArb, (input) => {
        const out = applyRule(input);
        const ref = naiveRule(input);
        expect({
          limits: out.limits,
          first: out.first,
          reason: out.reason,
          priority: out.priority,
          ttl: out.ttl,
        }).toEqual(ref);
      }),
      { numRuns: RUNS },
    );
  });

  it('the priority is a permutation of the pathways, the first first', () => {
    fc.assert(
      fc.property(ruleInputArb, (input) => {
        const out = applyRule(input);
        const m = input.policy.pathways.length;
        expect(out.priority[0]).toBe(out.first);
        expect([...out.priority].sort((a, b) => a - b)).toEqual(
          Array.from({ length: m }, (_, i) => i),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('hold and rank never prefer a pathway with no figure over one within the limits with a figure', () => {
    fc.assert(
      fc.property(ruleInputArb, (input) => {
        const out = applyRule(input);
        if (out.reason !== R.hold && out.reason !== R.rank) return;
        if (input.figures[out.first]!.status === STATUS.figure) return;
        input.figures.forEach((f, i) => {
          if (out.limits[i] === 7) expect(f.status).not.toBe(STATUS.figure);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('the result does not depend on a precomputed order being passed', () => {
    fc.assert(
      fc.property(ruleInputArb, (input) => {
        const out = applyRule(input);
        expect(applyRule({ ...input, order: out.order })).toEqual(out);
      }),
      { numRuns: 200 },
    );
  });
});
