/**
 * §6.2: the order of the pathways, by rank, then figure within a class, then id.
 */
import { type PolicyFields, STATUS } from '@wai-steering/wire';

/** What §6 reads of a pathway's evidence (§5.3): its status, class, J and D. */
export interface RuleFigure {
  readonly status: number;
  readonly class: number;
  readonly joules: bigint;
  readonly delivery: bigint;
}

/** §6.2: the rank of no figure. */
export const NO_FIGURE_RANK = 4;

/**
 * §6.2: 0 for a figure of class 5 (CalibratedInstrument), 1 of class 4 (OnChipCounter), 2 of
 * class 2 (ModelBased), 3 of class 3 (Estimator), 4 for no figure.
 */
export function rankOf(figure: Pick<RuleFigure, 'status' | 'class'>): number {
  if (figure.status !== STATUS.figure) return NO_FIGURE_RANK;
  switch (figure.class) {
    case 5:
      return 0;
    case 4:
      return 1;
    case 2:
      return 2;
    case 3:
      return 3;
    default:
      return NO_FIGURE_RANK; // not a class: no figure that can be compared
  }
}

/**
 * §6.2: the indices of the pathways in the order: p before q when, of these, the first that
 * tells them apart says so: (1) p's rank is below q's; (2) both have a figure of one class and
 * J_p × D_q < J_q × D_p; (3) p's `id` is below q's, bytewise. Figures are compared only
 * within a class. A function of the policy and the evidence alone, so a server computes it once
 * per window move.
 */
export function orderPathways(
  policy: Pick<PolicyFields, 'pathways'>,
  figures: readonly RuleFigure[],
): number[] {
  const pathways = policy.pathways;
  if (figures.length !== pathways.length) {
    throw new TypeError('orderPathways: one figure per pathway of the policy');
  }
  const ranks = figures.map(rankOf);
  const indices = pathways.map((_, i) => i);
  indices.sort((p, q) => {
    const rp = ranks[p]!;
    const rq = ranks[q]!;
    if (rp !== rq) return rp - rq; // §6.2 step 1
    if (rp !== NO_FIGURE_RANK) {
      // §6.2 step 2: one rank below 4 is one class; products formed in full.
      const fp = figures[p]!;
      const fq = figures[q]!;
      const left = fp.joules * fq.delivery;
      const right = fq.joules * fp.delivery;
      if (left < right) return -1;
      if (left > right) return 1;
    }
    // §6.2 step 3: ids are one byte per character (§3.3), so string order is bytewise.
    const a = pathways[p]!.id;
    const b = pathways[q]!.id;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return indices;
}
