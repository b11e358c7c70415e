/**
 * An account kept period by period (docs/energy.md, *Kept period by period*). Every figure of an
 * account is a sum over its periods of what each period gives each pathway (item 1b's J and D of
 * a usable period, the edge hops' sessions, the sessions placed at its midpoint) and a function
 * of those sums: so the facts of a period, once its records are settled, are the same in every
 * account whose span holds it. A server keeping the trailing day's account reads only the
 * periods settled since the last one, and {@link accountOfPeriods} gives the account of the
 * day from the facts kept, equal to the account streamed over the whole span.
 */
import { type Policy, toHex } from '@wai-steering/wire';
import { fitPathway, savingsOf } from './fit.js';
import { RunningSums } from './internal/sums.js';
import { type PolicyInForce, spanPolicy } from './policies.js';
import type { EnergyAccount, PathwayAccount } from './types.js';

/** One pathway's part of one period, with the sessions placed on it. */
export interface PathwayFacts {
  /** Whether the period is usable for the pathway (item 1b). */
  readonly usable: boolean;
  /** J_pk and D_pk when usable; 0 otherwise. */
  readonly joules: bigint;
  readonly delivery: bigint;
  /** The edge hops' `sessions` when usable; 0 otherwise. */
  readonly sessions: number;
  /**
   * The sessions the load replay counts on the pathway at the period's midpoint when the period
   * is usable, 0 otherwise; `null` for an account without the replay (no `graceS`).
   */
  readonly placed: bigint | null;
}

/** A period's facts: its first instant (room clock µs) and each pathway's part, in policy order. */
export interface PeriodFacts {
  readonly start: bigint;
  readonly pathways: readonly PathwayFacts[];
}

/** What an account sums of each pathway over its usable periods. */
export interface PathwayTotals {
  readonly sums: RunningSums;
  served: bigint;
  placed: bigint;
}

/** Empty totals, one per pathway of `policy`. */
export function emptyTotals(policy: Policy): PathwayTotals[] {
  return policy.pathways.map(() => ({ sums: new RunningSums(), served: 0n, placed: 0n }));
}

/**
 * The account of `[from, to)` under `policy` from each pathway's totals (the accumulator's
 * `finish`, and {@link accountOfPeriods}): the fit of each pathway, the savings against the
 * initial pathway.
 */
export function accountOfTotals(
  policy: Policy,
  from: bigint,
  to: bigint,
  totals: readonly PathwayTotals[],
  replayed: boolean,
): EnergyAccount {
  const periods = Number((to - from) / policy.period_us);
  const fits = totals.map((t) => fitPathway(t.sums));
  const savings = savingsOf(
    totals.map((t, p) => ({ joules: t.sums.sJ, delivery: t.sums.sD, fit: fits[p]! })),
    policy.initial,
  );
  const pathways: PathwayAccount[] = totals.map((t, p) => {
    const f = fits[p]!;
    return {
      id: policy.pathways[p]!.id,
      periods: t.sums.n,
      periods_unusable: periods - t.sums.n,
      joules_uj: t.sums.sJ,
      delivery: t.sums.sD,
      average_pj_per_unit: f.average,
      marginal_pj_per_unit: f.marginal,
      marginal_ci95_pj_per_unit: f.ci95,
      idle_uj_per_period: f.idle,
      r2: f.r2,
      marginal_why: f.why,
      sessions_served: t.served,
      sessions_placed: replayed ? t.placed : null,
    };
  });
  return {
    room: toHex(policy.room),
    from,
    to,
    period_us: policy.period_us,
    basis: policy.basis,
    baseline: { pathway: policy.pathways[policy.initial]!.id, why: 'initial' },
    pathways,
    saved_average_uj: savings.average,
    saved_marginal_uj: savings.marginal,
    saved_marginal_ci95_uj: savings.ci95,
  };
}

/** Options of {@link accountOfPeriods}. */
export interface PeriodsOptions {
  /** The policies and the instants they took effect, ascending (see `spanPolicy`). */
  readonly policies: readonly PolicyInForce[];
  /** The span `[from, to)`, room clock µs, whole periods. */
  readonly from: bigint;
  readonly to: bigint;
  /** Whether the facts' `placed` were counted (the account's `sessions_placed` stated). */
  readonly replayed: boolean;
}

/**
 * The account of `[from, to)` from the facts of its periods (as an {@link EnergyAccumulator}
 * tells them with `onFacts`, from one account or several of adjacent spans): equal to the account
 * streamed over the span from the same records and decisions. Facts of periods outside the span
 * are passed over; a period the span holds and no fact gives counts as unusable for every
 * pathway. Throws an `EnergySpanError` for a span refused, and a `TypeError` for a fact off the
 * span's periods, a period given twice, or one of another number of pathways.
 */
export function accountOfPeriods(o: PeriodsOptions, facts: Iterable<PeriodFacts>): EnergyAccount {
  const { policy } = spanPolicy(o.policies, o.from, o.to);
  const P = policy.period_us;
  const totals = emptyTotals(policy);
  const seen = new Set<bigint>();
  for (const f of facts) {
    if (f.start < o.from || f.start >= o.to) continue;
    if ((f.start - o.from) % P !== 0n) {
      throw new TypeError(
        `accountOfPeriods: a period starting at ${f.start} is off the span's periods`,
      );
    }
    if (seen.has(f.start)) {
      throw new TypeError(`accountOfPeriods: the period starting at ${f.start} is given twice`);
    }
    seen.add(f.start);
    if (f.pathways.length !== totals.length) {
      throw new TypeError(
        `accountOfPeriods: the period starting at ${f.start} has ${f.pathways.length} pathways, the policy ${totals.length}`,
      );
    }
    for (let p = 0; p < totals.length; p++) {
      const part = f.pathways[p]!;
      if (!part.usable) continue;
      const t = totals[p]!;
      t.sums.addBig(part.delivery, part.joules);
      t.served += BigInt(part.sessions);
      t.placed += part.placed ?? 0n;
    }
  }
  return accountOfTotals(policy, o.from, o.to, totals, o.replayed);
}
