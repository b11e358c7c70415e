/**
 * Arrays in PostgreSQL's binary form (`array_send`), sent as one parameter each: `pg` sends a
 * Buffer parameter in binary format, and the statement's cast (`$1::int8[]`) tells the server
 * its type. Each is one copy of bytes here and one `array_recv` there, where `pg`'s own form of
 * an array is text (a string a number, `bytea` in hex) that the server parses again: the group
 * commit's and the integration's arrays cost a third to a half less of the server's CPU so, and
 * their strings no longer fill this process's heap (`docs/performance.md`, *The decision log at
 * event scale*).
 *
 * The layout: ndim (1), a null bitmap flag (0), the element type's oid, the length and lower
 * bound (1) of the one dimension, then each element as its byte length and its bytes (integers
 * big-endian).
 */
import { ENTRY } from '../entries.js';

const INT2 = 21;
const INT8 = 20;
const BYTEA = 17;
const HEADER = 20;

function withHeader(oid: number, n: number, bytes: number): Buffer {
  const out = Buffer.allocUnsafe(HEADER + bytes);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(0, 4);
  out.writeInt32BE(oid, 8);
  out.writeInt32BE(n, 12);
  out.writeInt32BE(1, 16);
  return out;
}

const TWO_32 = 2 ** 32;

/** Writes the integer `v` as a big-endian int64 at `at`: a safe integer (number) or a bigint. */
function putInt8(out: Buffer, at: number, v: number | bigint): void {
  if (typeof v === 'bigint') {
    out.writeBigInt64BE(BigInt.asIntN(64, v), at);
    return;
  }
  if (!Number.isSafeInteger(v)) throw new RangeError(`int8 of ${v}`);
  const hi = Math.floor(v / TWO_32);
  out.writeInt32BE(hi | 0, at);
  out.writeUInt32BE(v - hi * TWO_32, at + 4);
}

/** `int8[]` of integers (safe-integer numbers or bigints, taken as signed 64-bit). */
export function int8Array(values: readonly (number | bigint)[]): Buffer {
  const n = values.length;
  const out = withHeader(INT8, n, 12 * n);
  for (let i = 0, at = HEADER; i < n; i++, at += 12) {
    out.writeInt32BE(8, at);
    putInt8(out, at + 4, values[i]!);
  }
  return out;
}

/** `int8[]` of `first`, `first + 1`, … (`n` of them). */
export function int8Range(first: bigint, n: number): Buffer {
  const out = withHeader(INT8, n, 12 * n);
  const exact = first >= 0n && first + BigInt(n) <= BigInt(Number.MAX_SAFE_INTEGER);
  const from = Number(first);
  for (let i = 0, at = HEADER; i < n; i++, at += 12) {
    out.writeInt32BE(8, at);
    putInt8(out, at + 4, exact ? from + i : first + BigInt(i));
  }
  return out;
}

/** `int2[]` of small integers. */
export function int2Array(values: readonly number[]): Buffer {
  const n = values.length;
  const out = withHeader(INT2, n, 6 * n);
  for (let i = 0, at = HEADER; i < n; i++, at += 6) {
    out.writeInt32BE(2, at);
    out.writeInt16BE(values[i]!, at + 4);
  }
  return out;
}

/** `bytea[]` of byte strings. */
export function byteaArray(values: readonly Uint8Array[]): Buffer {
  let bytes = 0;
  for (const v of values) bytes += 4 + v.length;
  const out = withHeader(BYTEA, values.length, bytes);
  let at = HEADER;
  for (const v of values) {
    out.writeInt32BE(v.length, at);
    out.set(v, at + 4);
    at += 4 + v.length;
  }
  return out;
}

/**
 * The `t` and the key of each of `n` decision log entries laid end to end in `entries` (40 bytes
 * each: `t` u64 little-endian, then the digest), as two `int8[]`: `t` as the signed 64-bit
 * integer of its bits (the log's columns keep a u64 so), the key as the digest's first 8 bytes
 * big-endian (`keyOf`). Bytes copied, no number made.
 */
export function entryColumns(entries: Uint8Array, n: number): { t: Buffer; key: Buffer } {
  const t = withHeader(INT8, n, 12 * n);
  const key = withHeader(INT8, n, 12 * n);
  for (let i = 0, at = HEADER, e = 0; i < n; i++, at += 12, e += ENTRY) {
    t.writeInt32BE(8, at);
    key.writeInt32BE(8, at);
    // t: little-endian in the entry, big-endian in the array.
    for (let b = 0; b < 8; b++) {
      t[at + 4 + b] = entries[e + 7 - b]!;
      key[at + 4 + b] = entries[e + 8 + b]!;
    }
  }
  return { t, key };
}
