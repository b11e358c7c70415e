/**
 * §6.4 and §6.5: the first pathway and its reason, the priority and the TTL, with C9's readings.
 */
import { DECISION_REASON, type PolicyFields } from '@wai-steering/wire';
import { bandOf } from './draw.js';
import { limitsOf, WITHIN_LIMITS } from './limits.js';
import { NO_FIGURE_RANK, orderPathways, type RuleFigure, rankOf } from './order.js';
import type { Report } from './report.js';

/** The policy fields §6 reads. */
export type RulePolicy = Pick<
  PolicyFields,
  | 'latency_ceiling_ms'
  | 'floor'
  | 'tiers'
  | 'min_buffer_ms'
  | 'hysteresis_ppm'
  | 'ttl_s'
  | 'min_ttl_s'
  | 'pathways'
>;

/** The inputs of the rule (§6): the policy, the evidence, the report, the draw and the loads. */
export interface RuleInput {
  readonly policy: RulePolicy;
  /** §5.3: each pathway's status, class, J and D, in the policy's order. */
  readonly figures: readonly RuleFigure[];
  /** §4: c, T and B, each `null` when absent. */
  readonly report: Report;
  /** §6.3: d, in [0, 1 000 000). */
  readonly draw: number;
  /** §6: each pathway's load, the sessions the server steers to it first (u32). */
  readonly loads: readonly number[];
  /** §6.2's order when already computed for these figures ({@link orderPathways}). */
  readonly order?: readonly number[];
}

/** The output of the rule. */
export interface RuleOutput {
  /** §6.1, §7.1: each pathway's `limits` bits, in the policy's order. */
  readonly limits: number[];
  /** §6.2: the pathway indices in the order. */
  readonly order: readonly number[];
  /** §6.4: the first pathway. */
  readonly first: number;
  /** §6.4, §7.1: the reason it is first (wire's `DECISION_REASON`). */
  readonly reason: number;
  /** §6.5: the priority, every pathway once, the first first. */
  readonly priority: number[];
  /** §6.5: the TTL in seconds. */
  readonly ttl: number;
}

/** §6.5: the TTL is `min_ttl_s` for these reasons, `ttl_s` otherwise. */
function isShortTtl(reason: number): boolean {
  return (
    reason === DECISION_REASON.buffer ||
    reason === DECISION_REASON.floor ||
    reason === DECISION_REASON.none
  );
}

/**
 * §6.4: the client is at its floor when T is known and its sustainable tier (the highest tier
 * whose bitrate is at most T) is none, or at most F.
 */
export function isAtFloor(
  policy: Pick<PolicyFields, 'tiers' | 'floor'>,
  throughput: bigint | null,
): boolean {
  if (throughput === null) return false;
  const tiers = policy.tiers;
  let sustainable = -1; // none: tier 0's bitrate is above T
  for (let i = 0; i < tiers.length; i++) if (tiers[i]! <= throughput) sustainable = i;
  return sustainable < 0 || sustainable <= policy.floor;
}

/**
 * §6.4: w beats x (of its rank, both with a figure) when
 * J_w × D_x × (1 000 000 + h) < J_x × D_w × 1 000 000: strictly (C9), so a figure exactly at
 * the margin does not beat.
 */
export function beats(w: RuleFigure, x: RuleFigure, hysteresisPpm: number): boolean {
  return (
    w.joules * x.delivery * (1_000_000n + BigInt(hysteresisPpm)) <
    x.joules * w.delivery * 1_000_000n
  );
}

/**
 * §6.1 to §6.5: the limits, the order, the first pathway and its reason, the priority and the
 * TTL. Steps of §6.4 in their order (C9: buffer, floor and none come before share), the first
 * that applies deciding:
 * 1. buffer: c known and within the limits, B known and B < `min_buffer_ms`: c;
 * 2. floor: c known and within the limits, the client at its floor: c;
 * 3. none: no pathway within the limits: c when known, else the first of the order;
 * 4. share: the band holding the draw is of a pathway e within the limits: e (C9: only that
 *    band is considered);
 * 5. hold: c known and within the limits, c ≠ w, rank(c) = rank(w), and that rank is 4 or w does
 *    not beat c: c;
 * 6. rank: w, the first pathway of the order within the limits.
 */
export function applyRule(input: RuleInput): RuleOutput {
  const { policy, figures, report, draw, loads } = input;
  const m = policy.pathways.length;
  if (figures.length !== m) throw new TypeError('applyRule: one figure per pathway of the policy');
  const c = report.pathway;
  if (c !== null && !(Number.isInteger(c) && c >= 0 && c < m)) {
    throw new RangeError('applyRule: the report names no pathway of the policy');
  }
  const limits = limitsOf(policy, report, loads);
  const order = input.order ?? orderPathways(policy, figures);
  if (order.length !== m) throw new TypeError('applyRule: the order must name every pathway');
  // w: the first pathway of the order within the limits (none when no pathway is).
  let w = -1;
  for (const i of order) {
    if (limits[i] === WITHIN_LIMITS) {
      w = i;
      break;
    }
  }
  const cWithin = c !== null && limits[c] === WITHIN_LIMITS;
  let first: number;
  let reason: number;
  if (cWithin && report.buffer !== null && report.buffer < BigInt(policy.min_buffer_ms)) {
    // §6.4 step 1: buffer.
    first = c;
    reason = DECISION_REASON.buffer;
  } else if (cWithin && isAtFloor(policy, report.throughput)) {
    // §6.4 step 2: floor.
    first = c;
    reason = DECISION_REASON.floor;
  } else if (w < 0) {
    // §6.4 step 3: none: c when it is known, otherwise the first pathway of the order.
    first = c ?? order[0]!;
    reason = DECISION_REASON.none;
  } else {
    const e = bandOf(policy, draw);
    if (e !== undefined && limits[e] === WITHIN_LIMITS) {
      // §6.4 step 4: share (C9: only the band holding the draw).
      first = e;
      reason = DECISION_REASON.share;
    } else if (cWithin && c !== w && holds(figures[c]!, figures[w]!, policy.hysteresis_ppm)) {
      // §6.4 step 5: hold.
      first = c;
      reason = DECISION_REASON.hold;
    } else {
      // §6.4 step 6: rank.
      first = w;
      reason = DECISION_REASON.rank;
    }
  }
  // §6.5: the first, then the pathways within the limits in the order, then the others.
  const priority = [first];
  for (const i of order) if (i !== first && limits[i] === WITHIN_LIMITS) priority.push(i);
  for (const i of order) if (i !== first && limits[i] !== WITHIN_LIMITS) priority.push(i);
  const ttl = isShortTtl(reason) ? policy.min_ttl_s : policy.ttl_s;
  return { limits, order, first, reason, priority, ttl };
}

/** §6.4 step 5: c has w's rank, and that rank is 4 or w does not beat c. */
function holds(current: RuleFigure, w: RuleFigure, hysteresisPpm: number): boolean {
  const rank = rankOf(current);
  if (rank !== rankOf(w)) return false;
  return rank === NO_FIGURE_RANK || !beats(w, current, hysteresisPpm);
}
