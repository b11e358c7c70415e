// RFC 6962 §2.1's definitions written out literally, recursion and all, on node:crypto's SHA-256:
// the reference the package's iterative code is held to. Quadratic; for small trees only.
import { createHash } from 'node:crypto';

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** RFC 6962 §2.1: "k be the largest power of two smaller than n (i.e., k < n <= 2k)". */
function largestPowerBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) of the entries `d`. */
export function mth(d: readonly Uint8Array[]): Uint8Array {
  if (d.length === 0) return sha256(new Uint8Array(0));
  if (d.length === 1) return sha256(Uint8Array.of(0x00), d[0]!);
  const k = largestPowerBelow(d.length);
  return sha256(Uint8Array.of(0x01), mth(d.slice(0, k)), mth(d.slice(k)));
}

/** PATH(m, D[n]), RFC 6962 §2.1.1. */
export function path(m: number, d: readonly Uint8Array[]): Uint8Array[] {
  if (d.length === 1) return [];
  const k = largestPowerBelow(d.length);
  if (m < k) return [...path(m, d.slice(0, k)), mth(d.slice(k))];
  return [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
}

/** SUBPROOF(m, D[n], b), RFC 6962 §2.1.2. */
function subproof(m: number, d: readonly Uint8Array[], b: boolean): Uint8Array[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = largestPowerBelow(d.length);
  if (m <= k) return [...subproof(m, d.slice(0, k), b), mth(d.slice(k))];
  return [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true), RFC 6962 §2.1.2 (0 < m ≤ n). */
export function proof(m: number, d: readonly Uint8Array[]): Uint8Array[] {
  return subproof(m, d, true);
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

export function unhex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'hex'));
}
