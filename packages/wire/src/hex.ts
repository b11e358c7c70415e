const HEX = '0123456789abcdef';
/** Each byte's two lowercase hexadecimal digits: one concatenation a byte, not two. */
const PAIRS: readonly string[] = Array.from({ length: 256 }, (_, b) => HEX[b >> 4]! + HEX[b & 15]!);

/** Lowercase hexadecimal of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('toHex: expected a Uint8Array');
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += PAIRS[bytes[i]!]!;
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

/** Whether two byte strings are equal. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
