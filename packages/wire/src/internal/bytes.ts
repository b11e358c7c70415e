import type { Reason } from '../reasons.js';
import { type Magic, Refusal } from '../refusal.js';

/**
 * C1: a reader of exactly the bytes given. Every read that needs more bytes than remain
 * refuses `truncated` at the field it was reading; nothing else is thrown.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  readonly magic: Magic;
  readonly view: DataView;
  pos = 0;
  /** When set, the offset of each field read, by name (to place a rule's refusal). */
  trace: Map<string, number> | undefined;

  constructor(bytes: Uint8Array, magic: Magic) {
    this.bytes = bytes;
    this.magic = magic;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  refuse(reason: Reason, field: string, offset = this.pos): Refusal {
    return new Refusal(reason, { magic: this.magic, field, offset });
  }

  /** A refusal of one of the record's rules, at a field already read (placed by `trace`). */
  rule(reason: Reason, field: string, detail?: string): Refusal {
    const offset = this.trace?.get(field);
    return new Refusal(
      reason,
      offset === undefined ? { magic: this.magic, field } : { magic: this.magic, field, offset },
      detail,
    );
  }

  private need(n: number, field: string): number {
    if (this.remaining < n) throw this.refuse('truncated', field);
    const at = this.pos;
    if (this.trace !== undefined) this.trace.set(field, at);
    this.pos += n;
    return at;
  }

  u8(field: string): number {
    return this.bytes[this.need(1, field)]!;
  }

  u16(field: string): number {
    return this.view.getUint16(this.need(2, field), true);
  }

  u32(field: string): number {
    return this.view.getUint32(this.need(4, field), true);
  }

  u64(field: string): bigint {
    return this.view.getBigUint64(this.need(8, field), true);
  }

  u128(field: string): bigint {
    const at = this.need(16, field);
    const lo = this.view.getBigUint64(at, true);
    const hi = this.view.getBigUint64(at + 8, true);
    return hi === 0n ? lo : (hi << 64n) | lo;
  }

  /** `n` bytes, as a view into the (already copied) input. */
  take(n: number, field: string): Uint8Array {
    const at = this.need(n, field);
    return this.bytes.subarray(at, at + n);
  }

  /** A string of `n` bytes, one character per byte (latin1), so that it writes back exactly. */
  text(n: number, field: string): string {
    return latin1(this.take(n, field));
  }

  /**
   * C1 steps 1 and 2: the magic, then the version. Fewer than 4 bytes are `truncated` whatever
   * they hold (C9); 4 or more whose first 4 are not the magic are `malformed`.
   */
  header(): number {
    const m = this.magic;
    if (this.remaining < 4) throw this.refuse('truncated', 'magic');
    for (let i = 0; i < 4; i++) {
      if (this.bytes[this.pos + i] !== m.charCodeAt(i)) throw this.refuse('malformed', 'magic');
    }
    this.pos += 4;
    const version = this.u8('version');
    if (version !== 1) throw this.refuse('unknown_version', 'version', this.pos - 1);
    return version;
  }

  /** C1 steps 3 and 4: `sig`, then nothing left over. */
  signature(): Uint8Array {
    const sig = this.take(64, 'sig');
    if (this.remaining !== 0) throw this.refuse('malformed', 'sig', this.pos);
    return sig;
  }
}

/**
 * A Latin-1 view of bytes: each byte one character (so a non-ASCII byte stays non-ASCII, and the
 * string writes back exactly), and a cheap `Map` key for a digest. One `fromCharCode` call up to
 * 8 KiB (faster than a character a byte from 16 bytes on), in 8 KiB chunks beyond.
 */
export function latin1(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n <= CHUNK) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  let s = '';
  for (let i = 0; i < n; i += CHUNK) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return s;
}

const CHUNK = 0x2000;

/** Caller misuse: a `TypeError` naming the argument unless `value` is a `Uint8Array`. */
export function assertBytes(value: unknown, what: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${what}: expected a Uint8Array`);
}

/** A growable writer of little-endian fields. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  private grow(n: number): number {
    const at = this.length;
    const need = at + n;
    if (need > this.buf.length) {
      let cap = Math.max(this.buf.length * 2, 16);
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, at));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    this.length = need;
    return at;
  }

  u8(v: number, field: string): this {
    checkUint(v, 0xff, field);
    const at = this.grow(1); // before `this.buf` is read: `grow` may replace it
    this.buf[at] = v;
    return this;
  }

  u16(v: number, field: string): this {
    checkUint(v, 0xffff, field);
    const at = this.grow(2);
    this.view.setUint16(at, v, true);
    return this;
  }

  u32(v: number, field: string): this {
    checkUint(v, 0xffff_ffff, field);
    const at = this.grow(4);
    this.view.setUint32(at, v, true);
    return this;
  }

  u64(v: bigint, field: string): this {
    checkBig(v, 64, field);
    const at = this.grow(8);
    this.view.setBigUint64(at, v, true);
    return this;
  }

  u128(v: bigint, field: string): this {
    checkBig(v, 128, field);
    const at = this.grow(16);
    this.view.setBigUint64(at, v & 0xffff_ffff_ffff_ffffn, true);
    this.view.setBigUint64(at + 8, v >> 64n, true);
    return this;
  }

  raw(bytes: Uint8Array, field: string, size?: number): this {
    assertBytes(bytes, field);
    if (size !== undefined && bytes.length !== size) {
      throw new TypeError(`${field}: expected ${size} bytes, got ${bytes.length}`);
    }
    const at = this.grow(bytes.length);
    this.buf.set(bytes, at);
    return this;
  }

  /** A string written one byte per character; every character must be below 256. */
  text(s: string, field: string): this {
    if (typeof s !== 'string') throw new TypeError(`${field}: expected a string`);
    const at = this.grow(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0xff) throw new TypeError(`${field}: character ${i} is not a byte`);
      this.buf[at + i] = c;
    }
    return this;
  }

  /** A u8 (or u16) length, then the string's bytes. */
  lengthText(s: string, lengthBytes: 1 | 2, field: string): this {
    if (typeof s !== 'string') throw new TypeError(`${field}: expected a string`);
    if (lengthBytes === 1) this.u8(s.length, `${field} length`);
    else this.u16(s.length, `${field} length`);
    return this.text(s, field);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function checkUint(v: number, max: number, field: string): void {
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw new TypeError(`${field}: expected an integer from 0 to ${max}, got ${String(v)}`);
  }
}

function checkBig(v: bigint, bits: number, field: string): void {
  if (typeof v !== 'bigint' || v < 0n || v >> BigInt(bits) !== 0n) {
    throw new TypeError(`${field}: expected a u${bits} bigint, got ${String(v)}`);
  }
}
