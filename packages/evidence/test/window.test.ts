import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inWindow, windowAt } from '../src/index.js';

const policy = { period_us: 1_000n, window_us: 3_000n, lag_us: 250n };

describe('windowAt (§5.1)', () => {
  it('t < L: b = 0 and a = 0', () => {
    expect(windowAt(policy, 0n)).toEqual({ a: 0n, b: 0n });
    expect(windowAt(policy, 249n)).toEqual({ a: 0n, b: 0n });
  });
  it('t = L and t just before L + P: b = 0', () => {
    expect(windowAt(policy, 250n)).toEqual({ a: 0n, b: 0n });
    expect(windowAt(policy, 1_249n)).toEqual({ a: 0n, b: 0n });
  });
  it('t = L + P exactly: b = P, and b < W gives a = 0', () => {
    expect(windowAt(policy, 1_250n)).toEqual({ a: 0n, b: 1_000n });
    expect(windowAt(policy, 2_250n)).toEqual({ a: 0n, b: 2_000n });
  });
  it('b = W exactly: a = 0 (b − W = 0); one period later a = P', () => {
    expect(windowAt(policy, 3_250n)).toEqual({ a: 0n, b: 3_000n });
    expect(windowAt(policy, 4_249n)).toEqual({ a: 0n, b: 3_000n });
    expect(windowAt(policy, 4_250n)).toEqual({ a: 1_000n, b: 4_000n });
  });
  it('L = 0 and large t (beyond 2^53)', () => {
    const p = { period_us: 60_000_000n, window_us: 600_000_000n, lag_us: 0n };
    const t = 2n ** 60n + 12_345n;
    const b = t - (t % 60_000_000n);
    expect(windowAt(p, t)).toEqual({ a: b - 600_000_000n, b });
  });
  it('refuses P = 0 and t < 0 (RangeError)', () => {
    expect(() => windowAt({ ...policy, period_us: 0n }, 5n)).toThrow(RangeError);
    expect(() => windowAt(policy, -1n)).toThrow(RangeError);
  });
  it('property: b is the largest multiple of P at most t − L, and a = max(0, b − W)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        fc.integer({ min: 1, max: 20 }),
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (P, n, L, t) => {
          const W = P * BigInt(n);
          const { a, b } = windowAt({ period_us: P, window_us: W, lag_us: L }, t);
          expect(b % P).toBe(0n);
          if (t < L) expect(b).toBe(0n);
          else {
            // b ≤ t − L < b + P, checked without division
            expect(b <= t - L && t - L < b + P).toBe(true);
          }
          expect(a).toBe(b >= W ? b - W : 0n);
        },
      ),
    );
  });
});

describe('inWindow (§5.1)', () => {
  const w = { a: 1_000n, b: 4_000n };
  it('a ≤ start and end ≤ b, boundaries included', () => {
    expect(inWindow({ start: 1_000n, end: 4_000n }, w)).toBe(true);
    expect(inWindow({ start: 2_000n, end: 3_000n }, w)).toBe(true);
  });
  it('a record starting before a or ending after b is outside', () => {
    expect(inWindow({ start: 999n, end: 2_000n }, w)).toBe(false);
    expect(inWindow({ start: 3_000n, end: 4_001n }, w)).toBe(false);
  });
});
