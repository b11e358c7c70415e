/**
 * What the Energy page draws, from `GET /energy/series` (docs/server.md, *The energy account*):
 * the account, read strictly, and the figures behind it. Pure functions, tested in Node.
 *
 * The cumulative savings apply the account's figures to the delivery up to each instant: at the
 * end of bucket b, Σ_p (average_i − average_p) × D_p(≤ b) in the average view and
 * Σ_p (b_i − b_p) × D_p(≤ b) in the marginal view (pathways that delivered), its band
 * ± 1.96 √var with var = (Σ_p D_p(≤ b) − D_i(≤ b))² se_i² + Σ_{p≠i} D_p(≤ b)² se_p², se_p read
 * back from the pathway's interval. At the span's end they are the account's savings (to the
 * rounding of the stated figures): the curve shows when they were made, not another estimate.
 */
import { type EnergyAccountJson, readAccount } from '@wai-steering/energy';

/** One pathway's columns of the series (docs/server.md). */
export interface PathwaySeries {
  readonly id: string;
  readonly delivery: string[];
  readonly joules_uj: string[];
  readonly sessions_served: string[];
  readonly usable: number[];
  readonly sample_joules_uj: (string | null)[];
  readonly sample_delivery: (string | null)[];
}

export interface Series {
  readonly bucket_us: string;
  readonly buckets: number;
  readonly sample_stride: number;
  readonly sample_periods: number[];
  readonly pathways: PathwaySeries[];
}

/** The page's data: the account (its JSON, read strictly) and its series. */
export interface EnergyData {
  readonly account: EnergyAccountJson;
  readonly series: Series;
}

/** Reads `GET /energy/series`'s body; a one-line message of what is wrong otherwise. */
export function readSeriesBody(text: string): EnergyData | string {
  let body: { account?: unknown; series?: unknown };
  try {
    body = JSON.parse(text) as { account?: unknown; series?: unknown };
  } catch {
    return 'the server’s answer is not JSON';
  }
  const read = readAccount(JSON.stringify(body.account ?? null));
  if (!read.ok) return `the server’s account does not read: ${read.refusal.message}`;
  const s = body.series as Series | undefined;
  if (
    typeof s !== 'object' ||
    s === null ||
    !Array.isArray(s.pathways) ||
    s.pathways.length !== read.value.pathways.length
  ) {
    return 'the server’s answer has no series of the account’s pathways';
  }
  return { account: read.value, series: s };
}

/** The cumulative savings at each bucket's end (x: unix seconds), µJ; `null` where unstated. */
export interface Cumulative {
  readonly x: number[];
  readonly average: (number | null)[];
  readonly marginal: (number | null)[];
  readonly low: (number | null)[];
  readonly high: (number | null)[];
  /** Each pathway's cumulative delivery at each bucket's end. */
  readonly delivered: number[][];
}

/** se_p (µJ per unit) from a pathway's interval [lo, hi] = b × 10^6 ∓ 1.96 se_p × 10^6. */
function seOf(ci: readonly [number, number] | null): number | null {
  return ci === null ? null : (ci[1] - ci[0]) / (2 * 1.96) / 1e6;
}

export function cumulative(data: EnergyData): Cumulative {
  const { account: a, series: s } = data;
  const from = Number(BigInt(a.from) / 1000n) / 1000;
  const to = Number(BigInt(a.to) / 1000n) / 1000;
  const width = Number(BigInt(s.bucket_us) / 1000n) / 1000;
  const i = a.pathways.findIndex((p) => p.id === a.baseline.pathway);
  const x = [from];
  for (let b = 0; b < s.buckets; b++) x.push(Math.min(to, from + (b + 1) * width));
  const delivered = s.pathways.map((p) => {
    const out = [0];
    let sum = 0;
    for (const d of p.delivery) {
      sum += Number(d);
      out.push(sum);
    }
    return out;
  });
  const n = x.length;
  const avg = a.pathways.map((p) =>
    p.average_pj_per_unit === null ? null : Number(p.average_pj_per_unit) / 1e6,
  );
  const marg = a.pathways.map((p) =>
    p.marginal_pj_per_unit === null ? null : Number(p.marginal_pj_per_unit) / 1e6,
  );
  const se = a.pathways.map((p) => seOf(p.marginal_ci95_pj_per_unit));
  const delivering = a.pathways.map((p) => BigInt(p.delivery) > 0n);
  const averageStated = a.saved_average_uj !== null && i >= 0 && avg[i] !== null;
  const marginalStated = a.saved_marginal_uj !== null && i >= 0 && marg[i] !== null;
  const average: (number | null)[] = [];
  const marginal: (number | null)[] = [];
  const low: (number | null)[] = [];
  const high: (number | null)[] = [];
  for (let k = 0; k < n; k++) {
    let sa = 0;
    let sm = 0;
    let all = 0;
    let rest = 0;
    a.pathways.forEach((_, p) => {
      const d = delivered[p]![k] ?? 0;
      all += d;
      if (!delivering[p]) return;
      if (avg[p] !== null && avg[i] !== null) sa += (avg[i]! - avg[p]!) * d;
      if (marg[p] !== null && marg[i] !== null) sm += (marg[i]! - marg[p]!) * d;
      if (p !== i && se[p] !== null) rest += d * d * se[p]! * se[p]!;
    });
    average.push(averageStated ? sa : null);
    if (marginalStated) {
      const di = delivered[i]![k] ?? 0;
      const h = 1.96 * Math.sqrt((all - di) ** 2 * se[i]! ** 2 + rest);
      marginal.push(sm);
      low.push(sm - h);
      high.push(sm + h);
    } else {
      marginal.push(null);
      low.push(null);
      high.push(null);
    }
  }
  return { x, average, marginal, low, high, delivered };
}

/** A pathway's fit for its scatter: the sampled periods' (D, J) sorted by D, the line, idle. */
export interface Fit {
  readonly id: string;
  /** D and J of the usable sampled periods, ascending D. */
  readonly d: number[];
  readonly j: number[];
  /** The fitted J at each D (`null` without a marginal view), and the idle level. */
  readonly line: (number | null)[];
  readonly idle: number | null;
  /** The sampled periods that were not usable for it. */
  readonly unusable: number;
}

export function fits(data: EnergyData): Fit[] {
  return data.account.pathways.map((p, k) => {
    const s = data.series.pathways[k]!;
    const pts: [number, number][] = [];
    let unusable = 0;
    s.sample_delivery.forEach((d, n) => {
      const j = s.sample_joules_uj[n];
      if (d === null || j === null || j === undefined) unusable++;
      else pts.push([Number(d), Number(j)]);
    });
    pts.sort((u, v) => u[0] - v[0]);
    const b = p.marginal_pj_per_unit === null ? null : Number(p.marginal_pj_per_unit) / 1e6;
    const idle = p.idle_uj_per_period === null ? null : Number(p.idle_uj_per_period);
    return {
      id: p.id,
      d: pts.map((q) => q[0]),
      j: pts.map((q) => q[1]),
      line: pts.map((q) => (b === null || idle === null ? null : idle + b * q[0])),
      idle,
      unusable,
    };
  });
}
