// The text primitives every C2SP format here shares: RFC 4648 §4 base64, decimals without
// leading zeroes, UTF-8, and key names.
//
// Base64 is our own (not the platform's `atob`/`btoa`): `atob` skips ASCII whitespace and takes
// non-canonical pad bits, and these formats are signed text, where one text must have one
// reading. The tests hold it to Node's `Buffer` on every input they generate.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE: Int8Array = /* @__PURE__ */ (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 64; i++) t[ALPHABET.charCodeAt(i)] = i;
  return t;
})();

/** RFC 4648 §4 base64, with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let s = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 3 <= n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s +=
      ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + ALPHABET[v & 63]!;
  }
  if (n - i === 1) {
    const v = bytes[i]! << 16;
    s += `${ALPHABET[v >> 18]!}${ALPHABET[(v >> 12) & 63]!}==`;
  } else if (n - i === 2) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    s += `${ALPHABET[v >> 18]!}${ALPHABET[(v >> 12) & 63]!}${ALPHABET[(v >> 6) & 63]!}=`;
  }
  return s;
}

/**
 * RFC 4648 §4 base64, strictly: a multiple of 4 characters of the alphabet, `=` only as the last
 * one or two, and the unused bits of the last character zero (§3.5), so that exactly one text
 * encodes given bytes. `undefined` otherwise.
 */
export function decodeBase64(s: string): Uint8Array | undefined {
  const n = s.length;
  if (n % 4 !== 0) return undefined;
  let pad = 0;
  if (n > 0 && s.charCodeAt(n - 1) === 0x3d) pad = s.charCodeAt(n - 2) === 0x3d ? 2 : 1;
  const out = new Uint8Array((n / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < n; i += 4) {
    const last = i + 4 === n;
    const a = sextet(s, i);
    const b = sextet(s, i + 1);
    if (a < 0 || b < 0) return undefined;
    if (last && pad === 2) {
      if ((b & 15) !== 0) return undefined;
      out[o++] = (a << 2) | (b >> 4);
      break;
    }
    const c = sextet(s, i + 2);
    if (c < 0) return undefined;
    if (last && pad === 1) {
      if ((c & 3) !== 0) return undefined;
      out[o++] = (a << 2) | (b >> 4);
      out[o++] = ((b & 15) << 4) | (c >> 2);
      break;
    }
    const d = sextet(s, i + 3);
    if (d < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}

function sextet(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c < 128 ? DECODE[c]! : -1;
}

/** The largest u64, 2^64 − 1. */
export const U64_MAX: bigint = (1n << 64n) - 1n;

/**
 * An ASCII decimal "with no leading zeroes (unless … `0`)", as a u64; `undefined` when `s` is
 * not one, and `'limit'` when it is one above 2^64 − 1.
 */
export function parseDecimal(s: string): bigint | undefined | 'limit' {
  const n = s.length;
  if (n === 0 || !digitsOnly(s)) return undefined;
  if (n > 1 && s.charCodeAt(0) === 0x30) return undefined;
  if (n > 20) return 'limit';
  const v = BigInt(s);
  return v > U64_MAX ? 'limit' : v;
}

function digitsOnly(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

const encoder = /* @__PURE__ */ new TextEncoder();
const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** UTF-8 of a string (a lone surrogate would become U+FFFD: check with `isWellFormed` first). */
export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** The string of UTF-8 bytes; `undefined` when they are not valid UTF-8. A BOM is kept. */
export function fromUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether a string has no lone surrogate (so that it has a UTF-8 encoding). */
export function isWellFormed(s: string): boolean {
  return !/\p{Surrogate}/u.test(s);
}

/** signed-note: "MUST NOT contain any ASCII control characters … other than newline". */
export function hasControl(s: string): boolean {
  return /[\u0000-\u0009\u000b-\u001f]/.test(s);
}

/**
 * signed-note: key names "MUST be non-empty and MUST NOT contain any Unicode spaces or plus
 * (U+002B) characters". Unicode spaces are the `White_Space` property (as Go's
 * `unicode.IsSpace`). Control characters are refused too, as anywhere in a note.
 */
export function isKeyName(name: string): boolean {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    !name.includes('+') &&
    !/\p{White_Space}/u.test(name) &&
    !hasControl(name) &&
    isWellFormed(name)
  );
}

/** The big-endian u32 of 4 bytes at `offset`. */
export function u32be(bytes: Uint8Array, offset = 0): number {
  return (
    ((bytes[offset]! << 24) |
      (bytes[offset + 1]! << 16) |
      (bytes[offset + 2]! << 8) |
      bytes[offset + 3]!) >>>
    0
  );
}

/** The 4 big-endian bytes of a u32. */
export function u32bytes(v: number): Uint8Array {
  return new Uint8Array([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255]);
}

/** Lowercase, zero-padded hexadecimal of a u32 (8 digits). */
export function hex32(v: number): string {
  return v.toString(16).padStart(8, '0');
}
