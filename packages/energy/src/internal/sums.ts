/**
 * The running sums of a pathway (n, ΣD, ΣJ, ΣD², ΣDJ, ΣJ²), exact. A period's J and D are
 * usually far below 2^53, and adding up their squares and products as `bigint`s allocates a
 * number on the heap at each step; so terms below 2^53 are added in float64 arithmetic that is
 * exact (limbs of 21 bits, whose products and sums stay below 2^53), moved into a `bigint` only
 * when an accumulator would pass 2^53, and larger terms are added as `bigint`s. The result is the
 * same integer either way (the tests hold it to plain `bigint` sums).
 * @internal
 */

const LIMB = 2 ** 21;
const TWO53 = 2 ** 53;
const BIG_TWO53 = 1n << 53n;
const SHIFTS = [0n, 21n, 42n, 63n, 84n];

/** An exact sum of integers, each below 2^53, and of any `bigint`. */
class WideSum {
  private small = 0;
  private big = 0n;

  add(x: number): void {
    const s = this.small + x;
    if (s >= TWO53) {
      this.big += BigInt(this.small);
      this.small = x;
    } else {
      this.small = s;
    }
  }

  addBig(x: bigint): void {
    this.big += x;
  }

  get value(): bigint {
    return this.big + BigInt(this.small);
  }
}

/** An exact sum of products x·y of integers below 2^53, in five accumulators of 21-bit weight. */
class ProductSum {
  private readonly acc = [0, 0, 0, 0, 0];
  private big = 0n;

  private put(i: number, c: number): void {
    const acc = this.acc;
    const s = acc[i]! + c;
    if (s >= TWO53) {
      this.big += BigInt(acc[i]!) << SHIFTS[i]!;
      acc[i] = c;
    } else {
      acc[i] = s;
    }
  }

  /** Adds x·y for integers 0 ≤ x, y < 2^53. */
  add(x: number, y: number): void {
    const x2 = Math.floor(x / (LIMB * LIMB));
    const x1 = Math.floor(x / LIMB) - x2 * LIMB;
    const x0 = x - Math.floor(x / LIMB) * LIMB;
    const y2 = Math.floor(y / (LIMB * LIMB));
    const y1 = Math.floor(y / LIMB) - y2 * LIMB;
    const y0 = y - Math.floor(y / LIMB) * LIMB;
    // Each limb product is below 2^42; each weight's sum of at most three below 2^44.
    this.put(0, x0 * y0);
    this.put(1, x0 * y1 + x1 * y0);
    this.put(2, x0 * y2 + x1 * y1 + x2 * y0);
    this.put(3, x1 * y2 + x2 * y1);
    this.put(4, x2 * y2);
  }

  addBig(x: bigint, y: bigint): void {
    this.big += x * y;
  }

  get value(): bigint {
    let v = this.big;
    for (let i = 0; i < 5; i++) v += BigInt(this.acc[i]!) << SHIFTS[i]!;
    return v;
  }
}

/** n, ΣD, ΣJ, ΣD², ΣDJ, ΣJ² over a pathway's usable periods, exact. */
export class RunningSums {
  n = 0;
  private readonly d = new WideSum();
  private readonly j = new WideSum();
  private readonly dd = new ProductSum();
  private readonly dj = new ProductSum();
  private readonly jj = new ProductSum();

  /** A period's D and J, each an integer 0 ≤ x < 2^53. */
  add(d: number, j: number): void {
    this.n++;
    this.d.add(d);
    this.j.add(j);
    this.dd.add(d, d);
    this.dj.add(d, j);
    this.jj.add(j, j);
  }

  /** A period's D and J of any size. */
  addBig(d: bigint, j: bigint): void {
    if (d < BIG_TWO53 && j < BIG_TWO53) {
      this.add(Number(d), Number(j));
      return;
    }
    this.n++;
    this.d.addBig(d);
    this.j.addBig(j);
    this.dd.addBig(d, d);
    this.dj.addBig(d, j);
    this.jj.addBig(j, j);
  }

  get sD(): bigint {
    return this.d.value;
  }
  get sJ(): bigint {
    return this.j.value;
  }
  get sDD(): bigint {
    return this.dd.value;
  }
  get sDJ(): bigint {
    return this.dj.value;
  }
  get sJJ(): bigint {
    return this.jj.value;
  }
}
