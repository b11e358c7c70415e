// The shape of RFC 6962 §2.1 proofs, without hashes: which ranges of leaves each hash of a proof
// covers, and which complete subtrees a range's Merkle Tree Hash is made of. A tile reader asks
// for those subtrees' tiles first, then hashes; an in-memory source answers at once.

/** A half-open range of leaves `[start, end)`. */
export type Range = readonly [start: bigint, end: bigint];

/** A complete subtree: the leaves `[index · 2^level, (index + 1) · 2^level)`. */
export interface Subtree {
  readonly level: number;
  readonly index: bigint;
}

/** The bit length of a positive bigint. */
export function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** RFC 6962 §2.1: "k be the largest power of two smaller than n" (n > 1). */
export function splitPoint(n: bigint): bigint {
  return 1n << BigInt(bitLength(n - 1n) - 1);
}

/**
 * RFC 6962 §2.1.1, PATH(m, D[n]): the ranges whose MTH are the audit path of leaf `m` in the
 * tree of `n` leaves, from the leaf's sibling up (0 ≤ m < n).
 */
export function inclusionRanges(m: bigint, n: bigint): Range[] {
  const top: Range[] = [];
  let lo = 0n;
  let hi = n;
  // PATH(m, D[lo:hi]) = PATH(m, D[lo:lo+k]) : MTH(D[lo+k:hi])  if m − lo < k
  //                   = PATH(m, D[lo+k:hi]) : MTH(D[lo:lo+k])  otherwise
  while (hi - lo > 1n) {
    const k = splitPoint(hi - lo);
    if (m - lo < k) {
      top.push([lo + k, hi]);
      hi = lo + k;
    } else {
      top.push([lo, lo + k]);
      lo += k;
    }
  }
  return top.reverse();
}

/**
 * RFC 6962 §2.1.2, PROOF(m, D[n]) = SUBPROOF(m, D[n], true): the ranges whose MTH are the
 * consistency proof from size `m` to size `n` (0 < m ≤ n; empty when m = n).
 */
export function consistencyRanges(m: bigint, n: bigint): Range[] {
  const top: Range[] = [];
  let lo = 0n;
  let hi = n;
  let b = true;
  for (;;) {
    // SUBPROOF(m, D[lo:hi], b), m counted from 0 (so "m = n" of the text is m = hi here).
    if (m === hi) {
      if (!b) top.push([lo, hi]);
      break;
    }
    const k = splitPoint(hi - lo);
    if (m - lo <= k) {
      top.push([lo + k, hi]);
      hi = lo + k;
    } else {
      top.push([lo, lo + k]);
      lo += k;
      b = false;
    }
  }
  return top.reverse();
}

/**
 * The complete subtrees of RFC 6962's MTH(D[start:end]), left to right: the range splits at the
 * largest power of two smaller than its length until what remains is a power of two. Their
 * hashes fold from the right (`node(h1, node(h2, … hr))`) into the range's MTH. `start` must be
 * a multiple of the first subtree's width, as every range of a proof is.
 */
export function subtreesOf(start: bigint, end: bigint): Subtree[] {
  const out: Subtree[] = [];
  let lo = start;
  while (lo < end) {
    const len = end - lo;
    const width = (len & (len - 1n)) === 0n ? len : splitPoint(len);
    const level = bitLength(width) - 1;
    out.push({ level, index: lo >> BigInt(level) });
    lo += width;
  }
  return out;
}
