// Exact rationals written out plainly for the tests (Python's `Fraction`, reduced by the gcd),
// so that the tests' expected values do not come from the code under test.

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export class Fraction {
  readonly n: bigint;
  readonly d: bigint;
  constructor(n: bigint | number, d: bigint | number = 1n) {
    let nn = BigInt(n);
    let dd = BigInt(d);
    if (dd === 0n) throw new RangeError('zero denominator');
    if (dd < 0n) {
      nn = -nn;
      dd = -dd;
    }
    const g = gcd(nn, dd) || 1n;
    this.n = nn / g;
    this.d = dd / g;
  }
  plus(o: Fraction | bigint | number): Fraction {
    const f = o instanceof Fraction ? o : new Fraction(o);
    return new Fraction(this.n * f.d + f.n * this.d, this.d * f.d);
  }
  minus(o: Fraction | bigint | number): Fraction {
    const f = o instanceof Fraction ? o : new Fraction(o);
    return this.plus(new Fraction(-f.n, f.d));
  }
  times(o: Fraction | bigint | number): Fraction {
    const f = o instanceof Fraction ? o : new Fraction(o);
    return new Fraction(this.n * f.n, this.d * f.d);
  }
  div(o: Fraction | bigint | number): Fraction {
    const f = o instanceof Fraction ? o : new Fraction(o);
    return new Fraction(this.n * f.d, this.d * f.n);
  }
  /** Python's round(): to the nearest integer, a tie to the even one. */
  round(): bigint {
    const q = this.n >= 0n ? this.n / this.d : -((-this.n + this.d - 1n) / this.d); // floor
    const r = this.minus(q); // 0 ≤ r < 1
    const twice = r.times(2n);
    if (twice.n > twice.d) return q + 1n;
    if (twice.n < twice.d) return q;
    return q % 2n === 0n ? q : q + 1n;
  }
  /** A float64 near the value (within a few ulps: the tests compare floats with a tolerance). */
  toNumber(): number {
    // Scale both to at most 2^60 so each converts exactly enough.
    let n = this.n;
    let d = this.d;
    let e = 0;
    while ((n < 0n ? -n : n) > 1n << 60n) {
      n >>= 1n;
      e++;
    }
    while (d > 1n << 60n) {
      d >>= 1n;
      e--;
    }
    return (Number(n) / Number(d)) * 2 ** e;
  }
}

/** |x − y| ≤ tol × max(|x|, |y|). */
export function close(x: number, y: number, tol = 1e-12): boolean {
  return x === y || Math.abs(x - y) <= tol * Math.max(Math.abs(x), Math.abs(y));
}
