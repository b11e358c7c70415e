// A second, naive implementation of §6.2 to §6.5, written from the text for the tests: it
// compares figures as rationals by Euclid's continued-fraction expansion (no cross products),
// sorts by insertion, and runs §6.4's steps as a list of predicates.
import type { PolicyFields } from '@wai-steering/wire';
import type { Report, RuleFigure } from '../../src/index.js';

/** Sign of n/d − p/q for positive denominators, by continued fractions. */
export function compareFractions(n: bigint, d: bigint, p: bigint, q: bigint): number {
  for (;;) {
    const a = n / d;
    const b = p / q;
    if (a !== b) return a < b ? -1 : 1;
    const r = n % d;
    const s = p % q;
    if (r === 0n && s === 0n) return 0;
    if (r === 0n) return -1; // n/d = a < p/q
    if (s === 0n) return 1;
    // r/d vs s/q has the opposite sign of d/r vs q/s.
    [n, d, p, q] = [q, s, d, r];
  }
}

/** §6.2 ranks by position in a string, class tag as character. */
function naiveRank(f: RuleFigure): number {
  if (f.status !== 0) return 4;
  const at = '5423'.indexOf(String(f.class));
  return at < 0 ? 4 : at;
}

function idLess(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! < y[i]!;
  }
  return x.length < y.length;
}

/** Whether p comes before q (§6.2). */
export function naiveBefore(
  policy: Pick<PolicyFields, 'pathways'>,
  figures: readonly RuleFigure[],
  p: number,
  q: number,
): boolean {
  const rp = naiveRank(figures[p]!);
  const rq = naiveRank(figures[q]!);
  if (rp !== rq) return rp < rq;
  if (rp < 4) {
    const fp = figures[p]!;
    const fq = figures[q]!;
    const c = compareFractions(fp.joules, fp.delivery, fq.joules, fq.delivery);
    if (c !== 0) return c < 0;
  }
  return idLess(policy.pathways[p]!.id, policy.pathways[q]!.id);
}

export function naiveOrder(
  policy: Pick<PolicyFields, 'pathways'>,
  figures: readonly RuleFigure[],
): number[] {
  const out: number[] = [];
  for (let i = 0; i < figures.length; i++) {
    let at = out.length;
    while (at > 0 && naiveBefore(policy, figures, i, out[at - 1]!)) at--;
    out.splice(at, 0, i);
  }
  return out;
}

export interface NaiveInput {
  readonly policy: PolicyFields;
  readonly figures: readonly RuleFigure[];
  readonly report: Report;
  readonly draw: number;
  readonly loads: readonly number[];
}

export function naiveRule(input: NaiveInput): {
  limits: number[];
  first: number;
  reason: number;
  priority: number[];
  ttl: number;
} {
  const { policy, figures, report, draw, loads } = input;
  const c = report.pathway;
  const limits = policy.pathways.map((p, i) => {
    const latency = p.latency_ms <= policy.latency_ceiling_ms;
    const quality = p.top_tier >= policy.floor;
    const capacity =
      p.capacity === 4294967295 || loads[i]! < p.capacity || (c === i && loads[i]! <= p.capacity);
    return (latency ? 1 : 0) + (quality ? 2 : 0) + (capacity ? 4 : 0);
  });
  const within = (i: number) => limits[i] === 7;
  const order = naiveOrder(policy, figures);
  const w = order.find(within);
  const cWithin = c !== null && within(c);
  // Sustainable tier: the highest tier whose bitrate is at most T.
  let sustainable: number | undefined;
  if (report.throughput !== null) {
    policy.tiers.forEach((rate, i) => {
      if (rate <= report.throughput!) sustainable = i;
    });
  }
  const atFloor =
    report.throughput !== null && (sustainable === undefined || sustainable <= policy.floor);
  // The band holding the draw.
  let band: number | undefined;
  let s = 0;
  policy.pathways.forEach((p, i) => {
    if (band === undefined && draw >= s && draw < s + p.min_share_ppm) band = i;
    s += p.min_share_ppm;
  });
  const h = BigInt(policy.hysteresis_ppm);
  // w beats x: J_w/D_w × (10^6 + h)/10^6 < J_x/D_x.
  const beats = (wi: number, xi: number) => {
    const fw = figures[wi]!;
    const fx = figures[xi]!;
    return (
      compareFractions(
        fw.joules * (1_000_000n + h),
        fw.delivery * 1_000_000n,
        fx.joules,
        fx.delivery,
      ) < 0
    );
  };
  const steps: [boolean | (() => boolean), () => number, number][] = [
    [
      () => cWithin && report.buffer !== null && report.buffer < BigInt(policy.min_buffer_ms),
      () => c!,
      1,
    ],
    [() => cWithin && atFloor, () => c!, 2],
    [() => w === undefined, () => (c !== null ? c : order[0]!), 6],
    [() => band !== undefined && within(band), () => band!, 3],
    [
      () =>
        cWithin &&
        c !== w &&
        naiveRank(figures[c!]!) === naiveRank(figures[w!]!) &&
        (naiveRank(figures[c!]!) === 4 || !beats(w!, c!)),
      () => c!,
      4,
    ],
    [true, () => w!, 5],
  ];
  const [, pick, reason] = steps.find(([when]) => (typeof when === 'boolean' ? when : when()))!;
  const first = pick();
  const priority = [
    first,
    ...order.filter((i) => i !== first && within(i)),
    ...order.filter((i) => i !== first && !within(i)),
  ];
  const ttl = [1, 2, 6].includes(reason) ? policy.min_ttl_s : policy.ttl_s;
  return { limits, first, reason, priority, ttl };
}
