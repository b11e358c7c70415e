/**
 * The end wheel of the session table (`sessions.ts`): each session's end kept on a wheel of one
 * bucket per second of the room clock, so that the loads at `now` leave out every session whose
 * end has come, swept or not (§6; `docs/audit.md`, *The load replay*).
 *
 * Each bucket is a list of 4-byte events (the end's µs within its second, its pathway, and whether
 * it was placed or removed since); when the clock enters a second its bucket is sorted, and walked
 * as the clock moves through it. A bucket holds an event per placement whose end is ahead, and one
 * per placement replaced before its end, until the bucket fills and they cancel out. Adding an end
 * and moving the clock allocate nothing but a bucket's list now and then.
 */

/** The most pathways a policy holds in the session table (a pathway is a byte, 0 for none). */
export const MAX_PATHWAYS = 254;
const US = 1_000_000;

/** `⌊us / 10^6⌋` exactly (a float division may round up just below a second). */
function secondOf(us: number): number {
  let s = Math.floor(us / US);
  if (s * US > us) s--;
  else if ((s + 1) * US <= us) s++;
  return s;
}

/**
 * The ends of one second of the room clock: events `offset × 512 + pathway × 2 + r`, `offset`
 * the end's µs within the second. Before the clock enters the second, in the order they came,
 * `r` 1 for a placement removed since; once it has, sorted (removals netted out), with `r` 1 for a
 * placement removed since, and `cur` the first event whose end has not come.
 */
interface Bucket {
  ev: Uint32Array;
  n: number;
  cur: number;
}

/** Sorts `a[0, n)` in place (heapsort: no allocation, a bucket a second). */
function sortEvents(a: Uint32Array, n: number): void {
  const sift = (i: number, size: number): void => {
    const v = a[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && a[c + 1]! > a[c]!) c++;
      if (a[c]! <= v) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = v;
  };
  for (let i = (n >> 1) - 1; i >= 0; i--) sift(i, n);
  for (let end = n - 1; end > 0; end--) {
    const top = a[0]!;
    a[0] = a[end]!;
    a[end] = top;
    sift(0, end);
  }
}

/** Sorts a bucket's events and nets each removal out with a placement of the same end. */
function compact(b: Bucket): void {
  const a = b.ev;
  sortEvents(a, b.n);
  let w = 0;
  let i = 0;
  while (i < b.n) {
    const key = a[i]! & ~1;
    let net = 0;
    while (i < b.n && (a[i]! & ~1) === key) {
      net += (a[i]! & 1) === 0 ? 1 : -1;
      i++;
    }
    for (; net > 0; net--) a[w++] = key;
  }
  b.n = w;
  b.cur = 0;
}

/** The ends of the sessions held, by second, and per pathway how many have come. */
export class EndWheel {
  /** Per pathway, the sessions counted whose end is at or before `clock`. */
  readonly gone = new Uint32Array(MAX_PATHWAYS);
  /** The latest instant the wheel was moved to (µs); -1 before the first. */
  private clock = -1;
  /** The second of `clock`, whose bucket is sorted and walked up to `clock`. */
  private sec = -1;
  private readonly buckets = new Map<number, Bucket>();
  private readonly pool: Bucket[] = [];
  /** While the ends are counted again, the current second's bucket is appended to, then sorted. */
  private rebuilding = false;

  /** Bytes of the wheel's events. */
  get bytes(): number {
    let wheel = 0;
    for (const b of this.buckets.values()) wheel += b.ev.byteLength;
    return wheel;
  }

  /** Moves the wheel to `now` (µs, not decreasing): every end at or before it is counted in `gone`. */
  advance(now: number): void {
    if (!(now > this.clock)) return;
    const ns = secondOf(now);
    if (ns !== this.sec) {
      // The rest of the second entered, then every whole second before `ns`, then `ns`.
      const b = this.buckets.get(this.sec);
      if (b !== undefined) {
        for (let i = b.cur; i < b.n; i++) {
          const e = b.ev[i]!;
          if ((e & 1) === 0) this.gone[(e >>> 1) & 255]!++;
        }
        this.release(this.sec, b);
      }
      if (ns - this.sec - 1 <= this.buckets.size) {
        for (let s = this.sec + 1; s < ns; s++) this.drainWhole(s);
      } else {
        for (const s of this.buckets.keys()) if (s < ns) this.drainWhole(s);
      }
      this.sec = ns;
      const entered = this.buckets.get(ns);
      if (entered !== undefined) compact(entered);
    }
    const b = this.buckets.get(ns);
    if (b !== undefined) {
      const off = now - ns * US;
      const ev = b.ev;
      let i = b.cur;
      while (i < b.n && ev[i]! >>> 9 <= off) {
        const e = ev[i]!;
        if ((e & 1) === 0) this.gone[(e >>> 1) & 255]!++;
        i++;
      }
      b.cur = i;
    }
    this.clock = now;
  }

  /** Counts every end of a second wholly past, placed or removed since. */
  private drainWhole(s: number): void {
    const b = this.buckets.get(s);
    if (b === undefined) return;
    for (let i = 0; i < b.n; i++) {
      const e = b.ev[i]!;
      if ((e & 1) === 0) this.gone[(e >>> 1) & 255]!++;
      else this.gone[(e >>> 1) & 255]!--;
    }
    this.release(s, b);
  }

  private release(s: number, b: Bucket): void {
    this.buckets.delete(s);
    b.n = 0;
    b.cur = 0;
    if (this.pool.length < 64) this.pool.push(b);
  }

  private bucketOf(s: number): Bucket {
    let b = this.buckets.get(s);
    if (b === undefined) {
      b = this.pool.pop() ?? { ev: new Uint32Array(64), n: 0, cur: 0 };
      this.buckets.set(s, b);
    }
    return b;
  }

  /** Room for one more event: a list that fills is compacted first, and doubled if need be. */
  private room(b: Bucket, sorted: boolean): void {
    if (b.n < b.ev.length) return;
    if (!sorted) compact(b);
    if (b.n * 2 > b.ev.length) {
      const grown = new Uint32Array(b.ev.length * 2);
      grown.set(b.ev.subarray(0, b.n));
      b.ev = grown;
    }
  }

  /** Counts a session of `pathway` ending at `end` (`sign` 1), or no longer (-1). */
  add(pathway: number, end: number, sign: 1 | -1): void {
    if (end <= this.clock) {
      this.gone[pathway]! += sign;
      return;
    }
    const s = secondOf(end);
    const v = (end - s * US) * 512 + pathway * 2;
    const current = s === this.sec && !this.rebuilding;
    const b = this.bucketOf(s);
    if (sign < 0 && current) {
      // The placement is after the walked part: the last of its kind is marked removed.
      const i = this.upperBound(b, v) - 1;
      if (i < b.cur || b.ev[i] !== v) throw new Error('SessionTable: an end not on the wheel');
      b.ev[i] = v + 1;
      return;
    }
    this.room(b, current);
    if (sign < 0) {
      b.ev[b.n++] = v + 1;
    } else if (current) {
      const at = this.upperBound(b, v);
      b.ev.copyWithin(at + 1, at, b.n);
      b.ev[at] = v;
      b.n++;
    } else {
      b.ev[b.n++] = v;
    }
  }

  /** The first index of the sorted bucket's unwalked events holding more than `v`. */
  private upperBound(b: Bucket, v: number): number {
    let lo = b.cur;
    let hi = b.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (b.ev[mid]! <= v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Forgets every end: the buckets released, nothing gone. */
  reset(): void {
    for (const [s, b] of [...this.buckets]) this.release(s, b);
    this.gone.fill(0);
  }

  /**
   * Forgets every end, then counts them again through `recount` (which adds them in any order);
   * the current second's bucket is sorted once they are all in (all are after the clock).
   */
  recount(recount: () => void): void {
    this.reset();
    this.rebuilding = true;
    try {
      recount();
    } finally {
      this.rebuilding = false;
    }
    const b = this.buckets.get(this.sec);
    if (b !== undefined) compact(b);
  }
}
