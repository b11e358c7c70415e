/**
 * `@wai-steering/wire/node`: a backend on `node:crypto` (OpenSSL), the same bytes and the same
 * outcomes as `nobleBackend`, faster.
 *
 * Verification is companion C2: steps 1 and 2 (A decodes canonically, not of small order) are
 * checked once per key and cached with the key's `KeyObject`; steps 3 and 4 are byte checks on
 * the signature (`preCheckSignature`); then OpenSSL's Ed25519 verification, which is the
 * cofactorless equation of step 5 comparing the encoding of [S]B − [k]A with R's 32 bytes.
 * OpenSSL alone is not strict (it takes a small-order or non-canonical A, and a small-order R):
 * the pre-checks are what make it C2.
 */
/// <reference types="node" />
// The package's one Node entry: its `tsconfig.json` (the portable sources) leaves it out.
import * as nodeCrypto from 'node:crypto';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign as nodeSign,
  verify as nodeVerify,
} from 'node:crypto';
import type { CryptoBackend, VerifyOutcome } from './crypto/backend.js';
import {
  BoundedCache,
  keyId,
  preCheckKey,
  preCheckSignature,
  verifyStrict,
} from './crypto/strict.js';
import { bytesEqual } from './hex.js';
import { assertBytes } from './internal/bytes.js';

/** PKCS #8 (RFC 8410) DER of an Ed25519 private key, before its 32-byte seed. */
/** `crypto.hash`, where this Node has it. */
const oneShotHash = (
  nodeCrypto as {
    hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer;
  }
).hash;

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface Signer {
  readonly key: KeyObject;
  /** Made when first asked for. */
  publicKey: Uint8Array | undefined;
}

/**
 * Signing keys, per secret key (by its hexadecimal). The `KeyObject` holds the secret anyway;
 * the cache is bounded so that it does not grow with the keys a process ever saw.
 */
const signers = new BoundedCache<Signer>(4096);

/**
 * Verification keys, per public key: the `KeyObject` when C2 steps 1 and 2 pass; `null` for
 * `bad_key`; `'noble'` if OpenSSL would not take a key that C2 takes (never seen: then that key
 * is verified with `verifyStrict`, so that the outcome still is C2's).
 */
const verifiers = new BoundedCache<KeyObject | null | 'noble'>(4096);

/**
 * The last key each way, compared byte for byte before the caches are asked: a signer or a
 * verifier that uses one key many times in a row skips building the cache key (its hex).
 */
const lastSecret = new Uint8Array(32);
let lastSigner: Signer | undefined;
const lastPublic = new Uint8Array(32);
let lastVerifier: KeyObject | null | 'noble' | undefined;

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function signer(secretKey: Uint8Array): Signer {
  assertBytes(secretKey, 'secretKey');
  if (secretKey.length !== 32) throw new RangeError('secretKey: expected 32 bytes');
  if (lastSigner !== undefined && bytesEqual(secretKey, lastSecret)) return lastSigner;
  const id = keyId(secretKey);
  let s = signers.get(id);
  if (s === undefined) {
    const der = Buffer.concat([PKCS8_PREFIX, secretKey]);
    s = { key: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }), publicKey: undefined };
    der.fill(0);
    signers.set(id, s);
  }
  lastSecret.set(secretKey);
  lastSigner = s;
  return s;
}

/**
 * The public `KeyObject` of 32 bytes that passed C2 steps 1 and 2. Imported as a JWK (RFC 8037
 * `OKP`/`Ed25519`): the same key as from SPKI DER (`302a300506032b6570032100` ‖ A), but
 * OpenSSL 3's DER decoder costs about 120 µs a key where the JWK import costs about 10 µs, and a
 * verifier meets most keys once.
 */
function importPublicKey(publicKey: Uint8Array): KeyObject {
  const x = bufferOf(publicKey).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

function verifier(publicKey: Uint8Array): KeyObject | null | 'noble' {
  if (publicKey.length !== 32) return null; // C2 step 1: not a 32-byte key
  if (lastVerifier !== undefined && bytesEqual(publicKey, lastPublic)) return lastVerifier;
  const id = keyId(publicKey);
  let v = verifiers.get(id);
  if (v === undefined) {
    if (preCheckKey(publicKey) !== 'ok') {
      v = null; // C2 step 1 or 2
    } else {
      try {
        v = importPublicKey(publicKey);
      } catch {
        v = 'noble';
      }
    }
    verifiers.set(id, v);
  }
  lastPublic.set(publicKey);
  lastVerifier = v;
  return v;
}

/** The `node:crypto` backend; import it from `@wai-steering/wire/node`. */
export const nodeBackend: CryptoBackend = Object.freeze({
  name: 'node',
  publicKey(secretKey: Uint8Array): Uint8Array {
    const s = signer(secretKey);
    if (s.publicKey === undefined) {
      const { x } = createPublicKey(s.key).export({ format: 'jwk' });
      s.publicKey = new Uint8Array(Buffer.from(x ?? '', 'base64url'));
      if (s.publicKey.length !== 32) throw new Error('node:crypto gave no Ed25519 public key');
    }
    return s.publicKey.slice();
  },
  sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
    const s = signer(secretKey);
    assertBytes(message, 'message');
    return new Uint8Array(nodeSign(null, message, s.key));
  },
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): VerifyOutcome {
    assertBytes(publicKey, 'publicKey');
    assertBytes(message, 'message');
    assertBytes(signature, 'signature');
    const key = verifier(publicKey); // C2 steps 1 and 2, cached per key
    if (key === null) return 'bad_key';
    if (preCheckSignature(signature) !== 'ok') return 'bad_signature'; // C2 steps 3 and 4
    if (key === 'noble') return verifyStrict(publicKey, message, signature);
    // C2 step 5: OpenSSL's cofactorless equation, R's bytes against the encoding it computes.
    return nodeVerify(null, message, key, signature) ? 'ok' : 'bad_signature';
  },
  sha256(data: Uint8Array): Uint8Array {
    assertBytes(data, 'data');
    // `crypto.hash` (Node 20.12 and later) skips the Hash object: about a third faster on the
    // short inputs of a request (the draw's 66 bytes).
    if (oneShotHash !== undefined) return new Uint8Array(oneShotHash('sha256', data, 'buffer'));
    return new Uint8Array(createHash('sha256').update(data).digest());
  },
});
