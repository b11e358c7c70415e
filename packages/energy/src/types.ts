/** The energy account's shape (docs/energy.md, *The JSON*), exact integers as `bigint`. */
import type { MarginalWhy } from './fit.js';

/** One pathway of an account (item 1g), exact integers as `bigint`. */
export interface PathwayAccount {
  /** The pathway's ID. */
  readonly id: string;
  /** n_p: the span's periods usable for the pathway (item 1b). */
  readonly periods: number;
  /** The span's periods that are not usable for it. */
  readonly periods_unusable: number;
  /** J_p: µJ over the usable periods. */
  readonly joules_uj: bigint;
  /** D_p: delivery over the usable periods, in the basis' unit (bytes, or µs). */
  readonly delivery: bigint;
  /** J_p × 10^6 / D_p, pJ per unit, rounded half to even; `null` when D_p = 0 (item 1c). */
  readonly average_pj_per_unit: bigint | null;
  /** b × 10^6, pJ per unit (item 1d). */
  readonly marginal_pj_per_unit: bigint | null;
  /** b × 10^6 ∓ 1.96 se_b × 10^6, float64. */
  readonly marginal_ci95_pj_per_unit: readonly [number, number] | null;
  /** (ΣJ − bΣD) / n, µJ per period. */
  readonly idle_uj_per_period: bigint | null;
  /** The fit's r², float64; `null` also when every usable period's J is equal. */
  readonly r2: number | null;
  /** Why the marginal view is `null`; `null` when it is stated. */
  readonly marginal_why: MarginalWhy | null;
  /** Over the usable periods, the sum of the edge hops' `sessions` (item 1e). */
  readonly sessions_served: bigint;
  /** Over the usable periods, the sessions counting at the pathway at each period's midpoint by the load replay; `null` without decisions. */
  readonly sessions_placed: bigint | null;
}

/** The energy account of a room over a span (item 1g), exact integers as `bigint`. */
export interface EnergyAccount {
  /** The room id, 64 lowercase hexadecimal digits. */
  readonly room: string;
  /** The span `[from, to)`, room clock µs. */
  readonly from: bigint;
  readonly to: bigint;
  /** P, µs. */
  readonly period_us: bigint;
  /** The policy's basis: 1 bytes, 2 µs at the floor tier or above. */
  readonly basis: number;
  /** The baseline: the policy's `initial` pathway, where players stay without steering (§8.2). */
  readonly baseline: { readonly pathway: string; readonly why: 'initial' };
  /** Every pathway of the policy in force at `to`, in its order. */
  readonly pathways: readonly PathwayAccount[];
  /** Σ_p (average_i − average_p) × D_p, µJ (item 1f). */
  readonly saved_average_uj: bigint | null;
  /** Σ_p (b_i − b_p) × D_p over the pathways with D_p > 0, µJ. */
  readonly saved_marginal_uj: bigint | null;
  /** The marginal saving ∓ 1.96 √var, float64. */
  readonly saved_marginal_ci95_uj: readonly [number, number] | null;
}
