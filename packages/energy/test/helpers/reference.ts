// The account's figures written out from the definitions of docs/energy.md (*The method*) with
// plain rationals: residuals summed one by one, means and deviations, nothing shared with the
// code under test (which uses closed forms over running sums).
import { Fraction } from './fraction.js';

export interface RefPathway {
  readonly average: bigint | null;
  readonly marginal: bigint | null;
  readonly idle: bigint | null;
  readonly ci: readonly [number, number] | null;
  readonly r2: number | null;
  readonly why: 'too_few_periods' | 'no_variance' | null;
  readonly b: Fraction | null;
  readonly se2: Fraction | null;
  readonly J: bigint;
  readonly D: bigint;
}

const M = 1_000_000n;

/** One pathway's figures from its usable periods' (J, D). */
export function refPathway(points: readonly (readonly [bigint, bigint])[]): RefPathway {
  const n = points.length;
  let J = 0n;
  let D = 0n;
  for (const [j, d] of points) {
    J += j;
    D += d;
  }
  const average = D === 0n ? null : new Fraction(J * M, D).round();
  const none = { marginal: null, idle: null, ci: null, r2: null, b: null, se2: null, J, D };
  if (n < 30) return { average, why: 'too_few_periods', ...none };
  const meanD = new Fraction(D, n);
  const meanJ = new Fraction(J, n);
  let sxx = new Fraction(0);
  let sxy = new Fraction(0);
  let syy = new Fraction(0);
  for (const [j, d] of points) {
    const dx = new Fraction(d).minus(meanD);
    const dy = new Fraction(j).minus(meanJ);
    sxx = sxx.plus(dx.times(dx));
    sxy = sxy.plus(dx.times(dy));
    syy = syy.plus(dy.times(dy));
  }
  if (sxx.n === 0n) return { average, why: 'no_variance', ...none };
  const b = sxy.div(sxx);
  const a = meanJ.minus(b.times(meanD));
  let ssr = new Fraction(0);
  for (const [j, d] of points) {
    const e = new Fraction(j).minus(a).minus(b.times(d));
    ssr = ssr.plus(e.times(e));
  }
  // se_b² = (SSR / (n − 2)) × n / (n ΣD² − (ΣD)²), and n ΣD² − (ΣD)² = n × Σ(D − D̄)².
  const se2 = ssr
    .div(n - 2)
    .times(n)
    .div(sxx.times(n));
  const centre = b.times(M).toNumber();
  const half = 1.96 * Math.sqrt(se2.times(M * M).toNumber());
  return {
    average,
    marginal: b.times(M).round(),
    idle: a.round(),
    ci: [centre - half, centre + half],
    r2: syy.n === 0n ? null : new Fraction(1).minus(ssr.div(syy)).toNumber(),
    why: null,
    b,
    se2,
    J,
    D,
  };
}

export interface RefSavings {
  readonly average: bigint | null;
  readonly marginal: bigint | null;
  readonly ci: readonly [number, number] | null;
}

/** Item 1f over the pathways' figures, `i` the baseline. */
export function refSavings(ps: readonly RefPathway[], i: number): RefSavings {
  const base = ps[i]!;
  let average: bigint | null = null;
  if (base.D !== 0n) {
    const avgI = new Fraction(base.J, base.D);
    let s = new Fraction(0);
    for (const p of ps) {
      if (p.D === 0n) continue;
      s = s.plus(avgI.minus(new Fraction(p.J, p.D)).times(p.D));
    }
    average = s.round();
  }
  const withD = ps.filter((p) => p.D !== 0n);
  if (base.b === null || withD.some((p) => p.b === null)) {
    return { average, marginal: null, ci: null };
  }
  let s = new Fraction(0);
  for (const p of withD) s = s.plus(base.b.minus(p.b!).times(p.D));
  let totalOthers = 0n;
  let v = new Fraction(0);
  ps.forEach((p, k) => {
    if (k === i || p.D === 0n) return;
    totalOthers += p.D;
    v = v.plus(p.se2!.times(p.D * p.D));
  });
  v = v.plus(base.se2!.times(totalOthers * totalOthers));
  const centre = s.toNumber();
  const half = 1.96 * Math.sqrt(v.toNumber());
  return { average, marginal: s.round(), ci: [centre - half, centre + half] };
}
