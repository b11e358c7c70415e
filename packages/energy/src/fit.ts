/**
 * docs/energy.md, *The method* and *The arithmetic, to the unit*: from each pathway's running sums over its usable periods, the
 * average, the marginal view (an ordinary least-squares line J = a + b·D), and the savings
 * against the baseline. Point estimates are exact rationals rounded once, half to even; only the
 * intervals and r² are float64, each computed from an exact rational converted once.
 */
import { add, type Ratio, ratio, roundHalfEven, scale, toFloat } from './internal/exact.js';

/** The running sums of one pathway over its usable periods (item 1b). */
export interface PathwaySums {
  /** n_p: the usable periods. */
  n: number;
  /** ΣD, ΣJ, ΣD², ΣDJ, ΣJ² over them (J in µJ, D in the basis' unit). */
  sD: bigint;
  sJ: bigint;
  sDD: bigint;
  sDJ: bigint;
  sJJ: bigint;
}

/** Why a pathway's marginal view is `null` (item 1d). */
export type MarginalWhy = 'too_few_periods' | 'no_variance';

/** Below this many usable periods the marginal view is not stated (item 1d). */
export const MIN_PERIODS = 30;

/** 1.96: the two-sided 95 % normal quantile the intervals are stated with (item 1d). */
const Z95 = 1.96;
const MICRO = 1_000_000n;

/** A pathway's figures (item 1c, 1d), with the exact b and se_b² the savings need. */
export interface PathwayFit {
  readonly average: bigint | null;
  readonly marginal: bigint | null;
  readonly ci95: readonly [number, number] | null;
  readonly idle: bigint | null;
  readonly r2: number | null;
  readonly why: MarginalWhy | null;
  /** b, µJ per unit, exact; `null` with the marginal view. */
  readonly b: Ratio | null;
  /** se_b², (µJ per unit)², exact; `null` with the marginal view. */
  readonly se2: Ratio | null;
}

/**
 * Items 1c and 1d for one pathway:
 * - `average_pj_per_unit` = J × 10^6 / D, `null` when D = 0;
 * - b = (n ΣDJ − ΣD ΣJ) / (n ΣD² − (ΣD)²); `marginal_pj_per_unit` = b × 10^6;
 * - `idle_uj_per_period` = (ΣJ − b ΣD) / n;
 * - se_b² = (SSR / (n − 2)) × n / (n ΣD² − (ΣD)²), which with Sxx = n ΣD² − (ΣD)²,
 *   Sxy = n ΣDJ − ΣD ΣJ, Syy = n ΣJ² − (ΣJ)² and SSR = (Syy Sxx − Sxy²) / (n Sxx) is exactly
 *   (Syy Sxx − Sxy²) / ((n − 2) Sxx²);
 * - the interval: float(b × 10^6) ∓ 1.96 × √float(se_b² × 10^12);
 * - r² = Sxy² / (Sxx Syy), `null` when Syy = 0 (every J equal);
 * - all of them `null` when n < 30 (`too_few_periods`) or Sxx = 0 (`no_variance`).
 */
export function fitPathway(s: PathwaySums): PathwayFit {
  const average = s.sD === 0n ? null : roundHalfEven(ratio(s.sJ * MICRO, s.sD));
  const n = BigInt(s.n);
  const sxx = n * s.sDD - s.sD * s.sD;
  let why: MarginalWhy | null = null;
  if (s.n < MIN_PERIODS) why = 'too_few_periods';
  else if (sxx === 0n) why = 'no_variance';
  if (why !== null) {
    return { average, marginal: null, ci95: null, idle: null, r2: null, why, b: null, se2: null };
  }
  const sxy = n * s.sDJ - s.sD * s.sJ;
  const syy = n * s.sJJ - s.sJ * s.sJ;
  const b = ratio(sxy, sxx);
  const marginal = roundHalfEven(scale(b, MICRO));
  // (ΣJ − b ΣD) / n = (ΣJ Sxx − Sxy ΣD) / (n Sxx)
  const idle = roundHalfEven(ratio(s.sJ * sxx - sxy * s.sD, n * sxx));
  const se2 = ratio(syy * sxx - sxy * sxy, (n - 2n) * sxx * sxx);
  const centre = toFloat(scale(b, MICRO));
  const half = Z95 * Math.sqrt(toFloat(scale(se2, MICRO * MICRO)));
  const r2 = syy === 0n ? null : toFloat(ratio(sxy * sxy, sxx * syy));
  return { average, marginal, ci95: [centre - half, centre + half], idle, r2, why, b, se2 };
}

/** One pathway's part in the savings: its delivery D_p and joules J_p, and its fit. */
export interface SavingTerm {
  readonly joules: bigint;
  readonly delivery: bigint;
  readonly fit: PathwayFit;
}

/** Item 1f: the savings against the baseline pathway `i`, each `null` when it cannot be stated. */
export interface Savings {
  readonly average: bigint | null;
  readonly marginal: bigint | null;
  readonly ci95: readonly [number, number] | null;
}

/**
 * Item 1f:
 * - `saved_average_uj` = Σ_p (J_i/D_i − J_p/D_p) × D_p, exact, rounded once: a pathway with
 *   D_p = 0 adds nothing; `null` when D_i = 0;
 * - `saved_marginal_uj` = Σ_p (b_i − b_p) × D_p over the pathways with D_p > 0, rounded once;
 *   `null` when b_i or one of those b_p is;
 * - its interval: float(saving) ∓ 1.96 × √float(var), with
 *   var = (Σ_p D_p − D_i)² se_i² + Σ_{p≠i} D_p² se_p², exact before its one conversion.
 * A saving is negative when delivery went to dearer pathways; it is never clipped.
 */
export function savingsOf(terms: readonly SavingTerm[], baseline: number): Savings {
  const base = terms[baseline];
  if (base === undefined) throw new RangeError('savingsOf: no baseline pathway');
  let totalD = 0n;
  for (const t of terms) totalD += t.delivery;

  let average: bigint | null = null;
  if (base.delivery !== 0n) {
    // (J_i / D_i) Σ_p D_p − Σ_{p: D_p > 0} J_p, over the denominator D_i.
    let spent = 0n;
    for (const t of terms) if (t.delivery !== 0n) spent += t.joules;
    average = roundHalfEven(ratio(base.joules * totalD - spent * base.delivery, base.delivery));
  }

  const bi = base.fit.b;
  const sei = base.fit.se2;
  let stated = bi !== null && sei !== null;
  for (const t of terms) if (t.delivery !== 0n && t.fit.b === null) stated = false;
  if (!stated || bi === null || sei === null) return { average, marginal: null, ci95: null };

  let saving: Ratio = ratio(0n, 1n);
  const others = totalD - base.delivery;
  let variance: Ratio = scale(sei, others * others);
  terms.forEach((t, p) => {
    if (t.delivery === 0n) return;
    const bp = t.fit.b!;
    // (b_i − b_p) × D_p
    saving = add(saving, scale(add(bi, { num: -bp.num, den: bp.den }), t.delivery));
    if (p !== baseline) variance = add(variance, scale(t.fit.se2!, t.delivery * t.delivery));
  });
  const marginal = roundHalfEven(saving);
  const centre = toFloat(saving);
  const half = Z95 * Math.sqrt(toFloat(variance));
  return { average, marginal, ci95: [centre - half, centre + half] };
}
