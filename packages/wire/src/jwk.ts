import type { CryptoBackend } from './crypto/backend.js';
import { getBackend } from './crypto/index.js';
import { bytesEqual } from './hex.js';

/** RFC 8037: an Ed25519 key as a JSON Web Key; `d` is present for a secret key. */
export interface Ed25519Jwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly d?: string;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** RFC 4648 §5 base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let s = '';
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    s += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    s += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]!;
  }
  return s;
}

/** RFC 4648 §5 base64url without padding, canonical (unused bits zero); `undefined` if not. */
export function parseBase64url(s: string): Uint8Array | undefined {
  if (typeof s !== 'string' || s.length % 4 === 1 || !/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    value = (value << 6) | B64URL.indexOf(s[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  if ((value & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** RFC 8037: the JWK of a 32-byte Ed25519 secret key (with its public key `x`). */
export function secretKeyToJwk(secretKey: Uint8Array, backend?: CryptoBackend): Ed25519Jwk {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError('secretKeyToJwk: the secret key must be 32 bytes');
  }
  const x = (backend ?? getBackend()).publicKey(secretKey);
  return { kty: 'OKP', crv: 'Ed25519', x: base64url(x), d: base64url(secretKey) };
}

/** An Ed25519 key read from a JWK: its public key, and its secret key when `d` is present. */
export interface JwkKeyPair {
  readonly publicKey: Uint8Array;
  readonly secretKey?: Uint8Array;
}

/**
 * RFC 8037: reads an Ed25519 JWK. Throws a `TypeError` naming what is wrong: not an object,
 * `kty` not `OKP`, `crv` not `Ed25519`, `x` or `d` not 32 bytes of base64url, or `x` not the
 * public key of `d`.
 */
export function jwkToKeyPair(jwk: unknown, backend?: CryptoBackend): JwkKeyPair {
  if (typeof jwk !== 'object' || jwk === null) throw new TypeError('a JWK must be a JSON object');
  const { kty, crv, x, d } = jwk as Record<string, unknown>;
  if (kty !== 'OKP') throw new TypeError('the JWK\'s "kty" is not "OKP"');
  if (crv !== 'Ed25519') throw new TypeError('the JWK\'s "crv" is not "Ed25519"');
  const publicKey = typeof x === 'string' ? parseBase64url(x) : undefined;
  if (publicKey === undefined || publicKey.length !== 32) {
    throw new TypeError('the JWK\'s "x" is not 32 bytes of base64url');
  }
  if (d === undefined) return { publicKey };
  const secretKey = typeof d === 'string' ? parseBase64url(d) : undefined;
  if (secretKey === undefined || secretKey.length !== 32) {
    throw new TypeError('the JWK\'s "d" is not 32 bytes of base64url');
  }
  if (!bytesEqual((backend ?? getBackend()).publicKey(secretKey), publicKey)) {
    throw new TypeError('the JWK\'s "x" is not the public key of its "d"');
  }
  return { publicKey, secretKey };
}
