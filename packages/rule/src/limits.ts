/**
 * §6.1: whether each pathway is within the limits for a request.
 */
import { LIMIT, NO_CAPACITY_LIMIT, type PolicyFields } from '@wai-steering/wire';
import type { Report } from './report.js';

/** All three bits of §7.1 `limits`: a pathway within the limits. */
export const WITHIN_LIMITS: number = LIMIT.latency | LIMIT.quality | LIMIT.capacity;

/** The policy fields §6.1 reads. */
export type LimitsPolicy = Pick<PolicyFields, 'latency_ceiling_ms' | 'floor' | 'pathways'>;

/**
 * §6.1, §7.1: each pathway's `limits` bits, in the policy's order: bit 0 latency
 * (`latency_ms` ≤ `latency_ceiling_ms`), bit 1 quality (`top_tier` ≥ F), bit 2 capacity
 * (`capacity` is 2^32 − 1, or load < `capacity`, or it is c and load ≤ `capacity`, since c's
 * load already counts the client; C9: a capacity of 0 with c's load 0 holds for c).
 * `loads[i]` is pathway i's load; the report's `pathway` is c (`null` when absent).
 */
export function limitsOf(
  policy: LimitsPolicy,
  report: Pick<Report, 'pathway'>,
  loads: readonly number[],
): number[] {
  const current = report.pathway;
  const pathways = policy.pathways;
  if (loads.length !== pathways.length) {
    throw new TypeError('limitsOf: one load per pathway of the policy');
  }
  const out = new Array<number>(pathways.length);
  for (let i = 0; i < pathways.length; i++) {
    const p = pathways[i]!;
    const load = loads[i]!;
    let bits = 0;
    if (p.latency_ms <= policy.latency_ceiling_ms) bits |= LIMIT.latency; // §6.1 latency
    if (p.top_tier >= policy.floor) bits |= LIMIT.quality; // §6.1 quality
    if (
      p.capacity === NO_CAPACITY_LIMIT ||
      load < p.capacity ||
      (i === current && load <= p.capacity)
    ) {
      bits |= LIMIT.capacity; // §6.1 capacity
    }
    out[i] = bits;
  }
  return out;
}
