/**
 * §5.1: the evidence window [a, b) at a decision's instant t on the room clock.
 */
import type { PolicyFields } from '@wai-steering/wire';

/** §5.1: the window [a, b), room clock µs. */
export interface Window {
  readonly a: bigint;
  readonly b: bigint;
}

/** The policy fields the window needs. */
export type WindowPolicy = Pick<PolicyFields, 'period_us' | 'window_us' | 'lag_us'>;

/**
 * §5.1: b = ⌊(t − L) / P⌋ × P (0 when t < L); a = b − W (0 when b < W). A policy with P = 0
 * breaks §3.3 and is a `RangeError` here; a negative t is a `RangeError` (t is a u64).
 */
export function windowAt(policy: WindowPolicy, t: bigint): Window {
  const P = policy.period_us;
  const W = policy.window_us;
  const L = policy.lag_us;
  if (typeof t !== 'bigint') throw new TypeError('windowAt: t must be a bigint');
  if (t < 0n) throw new RangeError('windowAt: t is below 0');
  if (P <= 0n) throw new RangeError('windowAt: period_us is not above 0 (§3.3)');
  // §5.1: b = ⌊(t − L) / P⌋ × P, 0 when t < L (t − L ≥ 0 here, so `/` is the floor).
  const b = t < L ? 0n : ((t - L) / P) * P;
  // §5.1: a = b − W, 0 when b < W (C9: the window is then [0, b)).
  const a = b < W ? 0n : b - W;
  return { a, b };
}

/** §5.1: a record is in the window when a ≤ its `start` and its `end` ≤ b. */
export function inWindow(
  record: { readonly start: bigint; readonly end: bigint },
  window: Window,
): boolean {
  return window.a <= record.start && record.end <= window.b;
}

/**
 * The instants t whose window is the window at `t`: [from, until). The window changes only when
 * ⌊(t − L) / P⌋ does, so every t in one period after L + b gives the same window (and every
 * t < L + P gives b = 0). Used by the evidence cache to answer with two comparisons.
 */
export function windowSpanAt(policy: WindowPolicy, t: bigint): { from: bigint; until: bigint } {
  const { b } = windowAt(policy, t);
  const L = policy.lag_us;
  const P = policy.period_us;
  if (b === 0n) return { from: 0n, until: L + P };
  return { from: L + b, until: L + b + P };
}
