/** The refused vectors of §9.1 step 5: the evidence. */
import type { EvidenceRecord } from '@wai-steering/evidence';
import { STATUS } from '@wai-steering/wire';
import { BEYOND_U128, HUGE, ONE_CLASS, STALE, TWO_CLASSES, UNMETERED } from '../accepted.js';
import { hexBytes, recordOf, redecide, renamingAll, restating } from '../world.js';
import { pathwayAt, type RefusedCase } from './common.js';

export const EVIDENCE: readonly RefusedCase[] = [
  {
    name: 'refuse/pathway/evidence-mismatch-joules',
    note: "bravo's J stated one µJ more than its records sum (the rest of the decision made from that statement).",
    reason: 'evidence_mismatch',
    where: pathwayAt(1),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      const p = b.evidence.pathways[1]!;
      return redecide(b, { evidence: restating(1, { ...p, joules: p.joules + 1n }) });
    },
  },
  {
    name: 'refuse/pathway/evidence-mismatch-class',
    note: "alpha's figure stated as CalibratedInstrument; its records are OnChipCounter.",
    reason: 'evidence_mismatch',
    where: pathwayAt(0),
    make: (ctx) => {
      const b = ctx.built(ONE_CLASS);
      return redecide(b, { evidence: restating(0, { ...b.evidence.pathways[0]!, class: 5 }) });
    },
  },
  {
    name: 'refuse/pathway/evidence-mismatch-stale-as-figure',
    note: "In the stale scenario, alpha (a gap in its edge hop's records) stated with a figure over the records named.",
    reason: 'evidence_mismatch',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(STALE), {
        evidence: restating(0, {
          status: STATUS.figure,
          class: 4,
          joules: 1_500_000n,
          delivery: 3_000_000n,
        }),
      }),
  },
  {
    name: 'refuse/pathway/sum-beyond-u128',
    note: "In the u128 scenario, alpha's three records of 2^127 µJ named and stated with J wrapped to 2^127: the sum recomputed in full is not it (C9).",
    reason: 'evidence_mismatch',
    where: pathwayAt(0),
    make: (ctx) => {
      const b = ctx.built(BEYOND_U128);
      const named = [-3, -2, -1].map((k) => {
        const r = recordOf(b, 'u128/alpha/edge', k);
        return { record: r.fields, digest: hexBytes(r.digest) };
      });
      return redecide(b, {
        evidence: (e) =>
          restating(0, { status: STATUS.figure, class: 4, joules: HUGE, delivery: 3_000_000n })(
            renamingAll(0, () => named)(e),
          ),
      });
    },
  },
  {
    name: 'refuse/pathway/unmetered-as-zero',
    note: 'In the unmetered scenario, alpha stated with the figure of its metered edge alone (the unmetered hop counted as zero): 0.3 J over 3 MB, which would rank it first.',
    reason: 'unmetered_as_zero',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(UNMETERED), {
        evidence: restating(0, {
          status: STATUS.figure,
          class: 4,
          joules: 300_000n,
          delivery: 3_000_000n,
        }),
      }),
  },
  {
    name: 'refuse/pathway/unmetered-as-zero-stale',
    note: "As above with alpha's first edge record also left out (stale as well): the unmetered record is tested first (C9).",
    reason: 'unmetered_as_zero',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(UNMETERED), {
        evidence: (e) =>
          restating(0, { status: STATUS.figure, class: 4, joules: 200_000n, delivery: 2_000_000n })(
            renamingAll(0, (n: readonly EvidenceRecord[]) => n.slice(1))(e),
          ),
      }),
  },
  {
    name: 'refuse/pathway/classes-summed',
    note: 'In the two-classes scenario, alpha (OnChipCounter edge, ModelBased interior) stated with one OnChipCounter figure summing both.',
    reason: 'classes_summed',
    where: pathwayAt(0),
    make: (ctx) =>
      redecide(ctx.built(TWO_CLASSES), {
        evidence: restating(0, {
          status: STATUS.figure,
          class: 4,
          joules: 3_000_000n,
          delivery: 3_000_000n,
        }),
      }),
  },
];
