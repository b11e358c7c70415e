import { assertBytes } from './internal/bytes.js';

const HEX = '0123456789abcdef';
/**
 * Each byte's two lowercase hexadecimal digits: one concatenation a byte, not two. The one table
 * of the package (`keyId` and `leToBigint` of the strict verifier read it too).
 */
export const HEX_PAIRS: readonly string[] = /* @__PURE__ */ Array.from(
  { length: 256 },
  (_, b) => HEX[b >> 4]! + HEX[b & 15]!,
);

/** Lowercase hexadecimal of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  assertBytes(bytes, 'toHex');
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX_PAIRS[bytes[i]!]!;
  return s;
}

/** The bytes of a hexadecimal string (either case); `undefined` when it is not one. */
export function parseHex(hex: string): Uint8Array | undefined {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    return undefined;
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The bytes of a hexadecimal string; a `TypeError` when it is not one. */
export function fromHex(hex: string): Uint8Array {
  const out = parseHex(hex);
  if (out === undefined) throw new TypeError('fromHex: expected an even-length hexadecimal string');
  return out;
}

/**
 * Whether two byte strings are equal. Every byte is compared (no early exit), so that the time
 * depends on the lengths alone: the one byte equality of the project, also for secret keys.
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** Bytewise comparison: negative, zero or positive. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
