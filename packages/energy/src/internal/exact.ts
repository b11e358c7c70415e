/**
 * Exact arithmetic of the account: rationals of `bigint`s, rounded once half to even, or
 * converted once to the nearest float64 (ties to even), as an exact rational of another language
 * (Python's `Fraction`, `float(Fraction)`) converts it.
 * @internal
 */

/** A rational `num / den`, `den` above 0; never reduced (the account's sums stay small). */
export interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

/** `num / den` with a positive denominator; a `RangeError` for a zero one. */
export function ratio(num: bigint, den: bigint): Ratio {
  if (den === 0n) throw new RangeError('ratio: a zero denominator');
  return den < 0n ? { num: -num, den: -den } : { num, den };
}

/** `x + y`, exact. */
export function add(x: Ratio, y: Ratio): Ratio {
  if (x.den === y.den) return { num: x.num + y.num, den: x.den };
  return { num: x.num * y.den + y.num * x.den, den: x.den * y.den };
}

/** `x × k` for an integer k, exact. */
export function scale(x: Ratio, k: bigint): Ratio {
  return { num: x.num * k, den: x.den };
}

/** ⌊n / d⌋ for d > 0 (`/` truncates toward zero). */
function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/** `x` rounded to the nearest integer, a tie to the even one. */
export function roundHalfEven(x: Ratio): bigint {
  const { num, den } = x;
  const q = floorDiv(num, den);
  const twice = 2n * (num - q * den); // 0 ≤ 2r < 2d
  if (twice > den) return q + 1n;
  if (twice < den) return q;
  return q % 2n === 0n ? q : q + 1n;
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** 2^e as a float64, exact for −1074 ≤ e ≤ 1023, built in steps that stay normal. */
function powerOfTwo(e: number): number {
  let x = 1;
  while (e > 1000) {
    x *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    x *= 2 ** -1000;
    e += 1000;
  }
  return x * 2 ** e;
}

/**
 * `x` as the nearest float64, a tie to the even one (correctly rounded, as `Number(bigint)` is
 * for an integer): the quotient is taken to 64 significant bits or more, with a sticky bit for a
 * remainder, then rounded once by `Number`, then scaled by a power of two (exact for the
 * magnitudes of an account, which are neither subnormal nor beyond 2^1023).
 */
export function toFloat(x: Ratio): number {
  let { num } = x;
  const { den } = x;
  if (num === 0n) return 0;
  const negative = num < 0n;
  if (negative) num = -num;
  const shift = 64 - (bitLength(num) - bitLength(den));
  let q: bigint;
  let r: bigint;
  if (shift >= 0) {
    const n = num << BigInt(shift);
    q = n / den;
    r = n % den;
  } else {
    const d = den << BigInt(-shift);
    q = num / d;
    r = num % d;
  }
  if (r !== 0n) q |= 1n;
  const v = Number(q) * powerOfTwo(-shift);
  return negative ? -v : v;
}
