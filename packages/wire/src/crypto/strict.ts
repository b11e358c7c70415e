/**
 * Companion C2: strict Ed25519 verification, exactly libsodium's `crypto_sign_verify_detached`.
 *
 * `verifyStrict` runs C2 steps 1 to 5 literally on `@noble/curves` point arithmetic (it decodes
 * A and R to points and multiplies them by 8). The "pre-checks" below are the cheap form of steps
 * 1 to 4 that a backend with its own cofactorless equation (node's OpenSSL) runs first; the
 * property tests hold the two forms to the same outcomes.
 *
 * Why not `ed25519.verify` of noble: it checks the cofactored equation and accepts a small-order
 * R even with `zip215: false`. Why not OpenSSL alone: it accepts a small-order or non-canonical A.
 */
import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesEqual, HEX_PAIRS } from '../hex.js';
import { assertBytes } from '../internal/bytes.js';
import type { VerifyOutcome } from './backend.js';

const Point = ed25519.Point;

/** The field prime p = 2^255 − 19. */
export const ED25519_P: bigint = (1n << 255n) - 19n;
/** The group order L = 2^252 + 27742317777372353535851937790883648493 (C2 step 4). */
export const ED25519_L: bigint = (1n << 252n) + 27742317777372353535851937790883648493n;

/** The little-endian bytes of L, for the byte comparison of C2 step 4. */
const L_BYTES: Uint8Array = /* @__PURE__ */ leBytes32(ED25519_L);

function leBytes32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

/** Lowercase hexadecimal of `bytes`: the cache key of a public or secret key. */
export function keyId(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX_PAIRS[bytes[i]!]!;
  return s;
}

/** The unsigned little-endian integer of `bytes`. */
export function leToBigint(bytes: Uint8Array): bigint {
  let s = '0x';
  for (let i = bytes.length - 1; i >= 0; i--) s += HEX_PAIRS[bytes[i]!]!;
  return BigInt(s);
}

/**
 * C2 steps 1 and 3, on the bytes: y, the low 255 bits of the 32 bytes at `offset`, is below p.
 * y ≥ p only when bits 254..0 are all ones but the last byte is ≥ 0xed (p = 0x7fff…ffed).
 */
export function isCanonicalY(bytes: Uint8Array, offset = 0): boolean {
  if ((bytes[offset + 31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (bytes[offset + i] !== 0xff) return true;
  return bytes[offset]! < 0xed;
}

/**
 * C2 steps 1 and 3: the 32 bytes decode to a point, canonically: y < p (checked on the bytes,
 * before noble sees them, so that noble's own range rule does not matter), y on the curve, and
 * not x = 0 with the sign bit set (checked again after decoding). `undefined` when they do not.
 */
export function decodePointStrict(bytes: Uint8Array): EdwardsPoint | undefined {
  if (bytes.length !== 32 || !isCanonicalY(bytes)) return undefined;
  let point: EdwardsPoint;
  try {
    // zip215 = false: noble also refuses y ≥ p and x = 0 with the sign bit; the checks here
    // around it make the rule exact whatever noble's defaults are.
    point = Point.fromBytes(bytes, false);
  } catch {
    return undefined; // y is not on the curve
  }
  if ((bytes[31]! & 0x80) !== 0 && point.toAffine().x === 0n) return undefined;
  return point;
}

/**
 * C2 steps 1 and 2, literally: A decodes canonically and [8]A is not the identity.
 * The decoded point, or `undefined` for `bad_key`.
 */
export function decodeKeyStrict(publicKey: Uint8Array): EdwardsPoint | undefined {
  const A = decodePointStrict(publicKey);
  if (A === undefined || A.isSmallOrder()) return undefined; // step 1, step 2
  return A;
}

/**
 * A small bounded map: when full, the oldest entry goes first (insertion order). Used for the
 * per-key caches; a key's bytes are its hexadecimal, so later changes to the caller's array do
 * not reach an entry.
 */
export class BoundedCache<V> {
  readonly limit: number;
  private readonly map = new Map<string, V>();

  constructor(limit = 4096) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('BoundedCache: limit ≥ 1');
    this.limit = limit;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (!this.map.has(key) && this.map.size >= this.limit) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
    this.map.set(key, value);
  }

  clear(): void {
    this.map.clear();
  }
}

/** Decoded keys (steps 1 and 2), per key; `null` is `bad_key`. */
const keyCache = new BoundedCache<EdwardsPoint | null>(4096);

/** C2 steps 1 and 2 through the per-key cache: the point A, or `null` for `bad_key`. */
export function decodeKeyCached(publicKey: Uint8Array): EdwardsPoint | null {
  if (publicKey.length !== 32) return null;
  const id = keyId(publicKey);
  let A = keyCache.get(id);
  if (A === undefined) {
    A = decodeKeyStrict(publicKey) ?? null;
    keyCache.set(id, A);
  }
  return A;
}

/** C2 steps 1 and 2 (cached): `ok` or `bad_key`. */
export function checkPublicKey(publicKey: Uint8Array): 'ok' | 'bad_key' {
  assertBytes(publicKey, 'publicKey');
  return decodeKeyCached(publicKey) === null ? 'bad_key' : 'ok';
}

/**
 * The y values (low 255 bits, little-endian) of the 8 points of small order: 1 (the identity),
 * p − 1 (order 2), 0 (the two points of order 4), and y₈, p − y₈ (the four points of order 8).
 * Each y stands for both values of the sign bit; with y = 1 and y = p − 1 the sign bit set is
 * x = 0 with the sign bit, not a canonical encoding at all. This is libsodium's
 * `ge25519_has_small_order` list less its non-canonical entries (p, p + 1), which the y < p
 * check has already refused.
 */
const SMALL_ORDER_Y: readonly Uint8Array[] = /* @__PURE__ */ [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
].map((h) =>
  Uint8Array.from({ length: 32 }, (_, i) => Number.parseInt(h.slice(2 * i, 2 * i + 2), 16)),
);

/**
 * Whether the 32 bytes at `offset`, a canonical y (`isCanonicalY`), are the encoding of a point
 * of small order, or x = 0 with the sign bit set: a byte comparison with a fixed list, no
 * scalar multiplication. The sign bit is ignored, as libsodium does.
 */
export function isSmallOrderEncoding(bytes: Uint8Array, offset = 0): boolean {
  outer: for (const y of SMALL_ORDER_Y) {
    if ((bytes[offset + 31]! & 0x7f) !== y[31]) continue;
    for (let i = 0; i < 31; i++) if (bytes[offset + i] !== y[i]) continue outer;
    return true;
  }
  return false;
}

/** C2 step 4, on the bytes: S, the 32 bytes at `offset` as a little-endian integer, is below L. */
export function isScalarBelowL(bytes: Uint8Array, offset = 32): boolean {
  for (let i = 31; i >= 0; i--) {
    const b = bytes[offset + i]!;
    const l = L_BYTES[i]!;
    if (b !== l) return b < l;
  }
  return false; // S = L
}

/**
 * C2 steps 1 and 2, the cheap form for a key not yet cached: the full decoding of step 1 is
 * needed here (a key off the curve is `bad_key`, and a backend's own verification would only say
 * "no"), so this decodes with noble; callers cache the answer per key.
 */
export function preCheckKey(publicKey: Uint8Array): 'ok' | 'bad_key' {
  assertBytes(publicKey, 'publicKey');
  return decodeKeyStrict(publicKey) === undefined ? 'bad_key' : 'ok';
}

/**
 * C2 steps 3 and 4, the cheap form: the signature is 64 bytes, R's y is below p, R is not one of
 * the small-order encodings (nor x = 0 with the sign bit), and S < L.
 *
 * It does not decode R to a point. That changes no outcome: libsodium does the same (canonical
 * check, small-order list, then the equation), and an R whose y is not on the curve fails step 5,
 * because the encoding of [S]B − [k]A is always the encoding of a point on the curve and so is
 * never R's 32 bytes; step 3 and step 5 both give `bad_signature`, and step 4 in between gives
 * `bad_signature` too, so which of them refuses cannot be told from the outcome.
 */
export function preCheckSignature(signature: Uint8Array): 'ok' | 'bad_signature' {
  assertBytes(signature, 'signature');
  if (signature.length !== 64) return 'bad_signature'; // step 3
  if (!isCanonicalY(signature, 0) || isSmallOrderEncoding(signature, 0)) return 'bad_signature'; // step 3
  if (!isScalarBelowL(signature, 32)) return 'bad_signature'; // step 4
  return 'ok';
}

/**
 * C2 steps 1 to 4 (the pre-checks; the key's steps through the per-key cache). After `ok`, a
 * cofactorless check of [S]B − [k]A against R's bytes (step 5) decides.
 */
export function preCheck(publicKey: Uint8Array, signature: Uint8Array): VerifyOutcome {
  if (checkPublicKey(publicKey) !== 'ok') return 'bad_key'; // steps 1, 2
  return preCheckSignature(signature); // steps 3, 4
}

/** k = SHA-512(R ‖ A ‖ message) mod L (C2 step 5). */
export function challenge(R: Uint8Array, A: Uint8Array, message: Uint8Array): bigint {
  const h = sha512.create().update(R).update(A).update(message).digest();
  return leToBigint(h) % ED25519_L;
}

/**
 * Companion C2, steps 1 to 5, literally, on noble's point arithmetic; the first step that fails
 * decides. A key that is not 32 bytes does not decode (step 1).
 */
export function verifyStrict(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): VerifyOutcome {
  assertBytes(publicKey, 'publicKey');
  assertBytes(message, 'message');
  assertBytes(signature, 'signature');
  // C2 steps 1 and 2: A decodes canonically and is not of small order (cached per key).
  const A = decodeKeyCached(publicKey);
  if (A === null) return 'bad_key';
  // C2 step 3: 64 bytes; R decodes as in step 1 and is not of small order.
  if (signature.length !== 64) return 'bad_signature';
  const rBytes = signature.subarray(0, 32);
  const R = decodePointStrict(rBytes);
  if (R === undefined || R.isSmallOrder()) return 'bad_signature';
  // C2 step 4: S < L.
  const S = leToBigint(signature.subarray(32, 64));
  if (S >= ED25519_L) return 'bad_signature';
  // C2 step 5: the encoding of [S]B − [k]A is R's 32 bytes (cofactorless; encodings compared).
  const k = challenge(rBytes, publicKey, message);
  const check = Point.BASE.multiplyUnsafe(S).subtract(A.multiplyUnsafe(k));
  return bytesEqual(check.toBytes(), rBytes) ? 'ok' : 'bad_signature';
}
