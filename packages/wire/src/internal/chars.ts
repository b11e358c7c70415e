// Character classes of §3.3 and C3/C4, on bytes (strings are one character per byte).

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isUnreservedCode(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5f ||
    c === 0x7e
  );
}

// RFC 3986 gen-delims but `#`, and sub-delims (§3.3, C9).
const RESERVED_BUT_HASH = new Set(Array.from(":/?[]@!$&'()*+,;=", (c) => c.charCodeAt(0)));

/** Whether every `%` of `s` begins a percent-encoding and every other character is allowed. */
function percentEncoded(s: string, allowed: (c: number) => boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (i + 2 >= s.length) return false;
      if (!isHexDigit(s.charCodeAt(i + 1)) || !isHexDigit(s.charCodeAt(i + 2))) return false;
      i += 2;
    } else if (!allowed(c)) {
      return false;
    }
  }
  return true;
}

/** §3.3: 1 to 2048 bytes of RFC 3986's characters, never `#`, each `%` a percent-encoding. */
export function isPolicyUri(s: string): boolean {
  return (
    s.length >= 1 &&
    s.length <= 2048 &&
    percentEncoded(s, (c) => isUnreservedCode(c) || RESERVED_BUT_HASH.has(c))
  );
}

/** §3.3: a clone param name or value: unreserved characters and percent-encodings. */
export function isParamText(s: string): boolean {
  return percentEncoded(s, isUnreservedCode);
}

/** §3.3: a pathway ID: 1 to 64 bytes of `A`–`Z`, `a`–`z`, `0`–`9`, `.`, `-`, `_`. */
export function isPathwayId(s: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(s);
}

/** §3.3: a clone's host: at most 255 bytes of `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `.`. */
export function isCloneHost(s: string): boolean {
  return /^[A-Za-z0-9.-]{0,255}$/.test(s);
}

/** C3: 1 to 64 bytes of printable ASCII. */
export function isRoomName(s: string): boolean {
  return /^[\x20-\x7e]{1,64}$/.test(s);
}

/** C4: an authority of `may_sign`: 1 to 64 bytes of `a`–`z`, `A`–`Z`, `0`–`9`, `/`, `_`, `-`, `.`. */
export function isAuthority(s: string): boolean {
  return /^[A-Za-z0-9/_.-]{1,64}$/.test(s);
}

/** Bytewise comparison of two strings of one byte per character. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The index of the first byte string of `list` that equals one before it, or -1: "no key twice".
 * The strings here are keys and digests, whose first four bytes differ but by chance: those are
 * compared first as numbers, and the list is sorted (indices, no string per key) only when two
 * of them meet.
 */
export function firstRepeat(list: readonly Uint8Array[]): number {
  const n = list.length;
  if (n > SMALL) {
    const heads = new Set<number>();
    for (const b of list) {
      const h = headOf(b);
      if (heads.has(h)) return firstRepeatSorted(list);
      heads.add(h);
    }
    return -1;
  }
  // A few (a decision's evidence): each head against those before it, no allocation.
  for (let i = 0; i < n; i++) {
    const h = headOf(list[i]!);
    SCRATCH[i] = h;
    for (let j = 0; j < i; j++) if (SCRATCH[j] === h) return firstRepeatSorted(list);
  }
  return -1;
}

const SMALL = 64;
const SCRATCH = new Float64Array(SMALL);

/** The first 4 bytes as a number, or a negative number of the length for a shorter string. */
function headOf(b: Uint8Array): number {
  return b.length >= 4
    ? (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0
    : -1 - b.length;
}

function firstRepeatSorted(list: readonly Uint8Array[]): number {
  const order = list.map((_, i) => i);
  order.sort((x, y) => compareByteArrays(list[x]!, list[y]!) || x - y);
  let first = -1;
  for (let k = 1; k < order.length; k++) {
    const later = order[k]!;
    if (compareByteArrays(list[order[k - 1]!]!, list[later]!) === 0) {
      if (first === -1 || later < first) first = later;
    }
  }
  return first;
}

function compareByteArrays(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
