// fast-check arbitraries of the rule's inputs.
import { STATUS } from '@wai-steering/wire';
import fc from 'fast-check';
import type { Report, RuleFigure } from '../../src/index.js';
import { type PathwayOpts, policyOf } from './rule-fixtures.js';

const U128 = (1n << 128n) - 1n;

/** A figure: no figure (any status but 0), or a figure of a class with 0 < J, D < 2^128. */
export const figureArb: fc.Arbitrary<RuleFigure> = fc.oneof(
  fc
    .constantFrom(STATUS.unmetered, STATUS.mixed, STATUS.stale, STATUS.empty)
    .map((status): RuleFigure => ({ status, class: 0, joules: 0n, delivery: 0n })),
  fc
    .record({
      class: fc.constantFrom(2, 3, 4, 5),
      // Small values collide often (ties); large ones exercise products beyond 2^128.
      joules: fc.oneof(fc.bigInt({ min: 1n, max: 20n }), fc.bigInt({ min: 1n, max: U128 })),
      delivery: fc.oneof(fc.bigInt({ min: 1n, max: 20n }), fc.bigInt({ min: 1n, max: U128 })),
    })
    .map((f): RuleFigure => ({ status: STATUS.figure, ...f })),
);

const idArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,6}$/);

/** A policy of 1 to `max` pathways with distinct ids, their limits and shares random. */
export function policyArb(max = 8) {
  return fc
    .uniqueArray(idArb, { minLength: 1, maxLength: max })
    .chain((ids) =>
      fc.record({
        pathways: fc.tuple(
          ...ids.map((id) =>
            fc.record({
              id: fc.constant(id),
              top_tier: fc.integer({ min: 0, max: 2 }),
              latency_ms: fc.integer({ min: 0, max: 300 }),
              capacity: fc.oneof(fc.constant(4294967295), fc.integer({ min: 0, max: 4 })),
              min_share_ppm: fc.oneof(
                fc.constant(0),
                fc.integer({ min: 0, max: Math.floor(1_000_000 / ids.length) }),
              ),
            }),
          ),
        ),
        hysteresis_ppm: fc.oneof(
          fc.constant(0),
          fc.constant(1_000_000),
          fc.integer({ min: 0, max: 1_000_000 }),
        ),
        floor: fc.integer({ min: 0, max: 2 }),
        min_buffer_ms: fc.integer({ min: 0, max: 10_000 }),
      }),
    )
    .map(({ pathways, ...opts }) => policyOf(pathways as PathwayOpts[], opts));
}

export function reportArb(m: number): fc.Arbitrary<Report> {
  return fc.record({
    pathway: fc.option(fc.integer({ min: 0, max: m - 1 }), { nil: null }),
    throughput: fc.option(
      fc.oneof(
        fc.constantFrom(499_999n, 500_000n, 1_500_000n, 3_999_999n, 4_000_000n),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      ),
      { nil: null },
    ),
    buffer: fc.option(fc.bigInt({ min: 0n, max: 20_000n }), { nil: null }),
  });
}

/** A whole rule input: policy, figures, report, draw, loads. */
export const ruleInputArb = policyArb().chain((policy) => {
  const m = policy.pathways.length;
  return fc.record({
    policy: fc.constant(policy),
    figures: fc.array(figureArb, { minLength: m, maxLength: m }),
    report: reportArb(m),
    draw: fc.integer({ min: 0, max: 999_999 }),
    loads: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: m, maxLength: m }),
  });
});
