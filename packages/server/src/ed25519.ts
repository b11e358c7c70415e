/**
 * §7.3: the server's Ed25519 signing key for its decisions, on libsodium where it loads, else on
 * `node:crypto` (OpenSSL).
 *
 * Why two: signing is the largest single cost of a steering request, and OpenSSL's Ed25519 (the
 * portable ref10 code, in the OpenSSL 3.0 that Node 20 carries) takes about 58 µs for a 300-byte
 * message and 73 µs for a decision of 1 494 bytes on the 2-core machines the benches run on,
 * where libsodium (npm `sodium-native`, its prebuilt binary) takes 31 and 39 µs
 * (`docs/performance.md`). Ed25519 signatures are deterministic (RFC 8032 §5.1.6), so both give
 * the same 64 bytes for a key and a message: the key is checked against its public key, and one
 * signature against OpenSSL's, when made; a mismatch, or a libsodium that does not load (a
 * platform without its prebuilt binary, an install without optional dependencies), leaves the
 * key on OpenSSL.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { createRequire } from 'node:module';
import { bytesEqual } from '@wai-steering/wire';

/** PKCS #8 (RFC 8410) DER of an Ed25519 private key, before its 32-byte seed. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** SPKI DER of an Ed25519 public key, before its 32 bytes. */
const SPKI_PREFIX_LENGTH = 12;

/** The few functions of `sodium-native` used here. */
interface Sodium {
  crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(sig: Uint8Array, message: Uint8Array, sk: Uint8Array): void;
}

let sodium: Sodium | null | undefined;

/** `sodium-native`, once, or null where it is not installed or does not load. */
function loadSodium(): Sodium | null {
  if (sodium === undefined) {
    try {
      sodium = createRequire(import.meta.url)('sodium-native') as Sodium;
    } catch {
      sodium = null;
    }
  }
  return sodium;
}

/** What signs: `libsodium` or `openssl`. */
export type Ed25519Provider = 'libsodium' | 'openssl';

export interface Ed25519SigningKey {
  readonly provider: Ed25519Provider;
  /** The 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** The 64-byte signature of `message` (RFC 8032 §5.1.6). */
  sign(message: Uint8Array): Uint8Array;
}

/**
 * The signing key of a 32-byte secret key (an RFC 8032 seed). `prefer: 'openssl'` keeps it on
 * `node:crypto` (tests, and the comparison of the two).
 */
export function ed25519SigningKey(
  secretKey: Uint8Array,
  options: { readonly prefer?: Ed25519Provider } = {},
): Ed25519SigningKey {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError('ed25519SigningKey: a 32-byte secret key');
  }
  const key: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, secretKey]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const publicKey = new Uint8Array(spki.subarray(SPKI_PREFIX_LENGTH));
  const openssl: Ed25519SigningKey = {
    provider: 'openssl',
    publicKey,
    sign: (message) => sign(null, message, key),
  };
  const lib = options.prefer === 'openssl' ? null : loadSodium();
  if (lib === null) return openssl;
  try {
    const pk = new Uint8Array(32);
    const sk = new Uint8Array(64);
    lib.crypto_sign_seed_keypair(pk, sk, secretKey);
    const sodiumKey: Ed25519SigningKey = {
      provider: 'libsodium',
      publicKey,
      sign: (message) => {
        const sig = new Uint8Array(64);
        lib.crypto_sign_detached(sig, message, sk);
        return sig;
      },
    };
    // The same key, and the same signature as OpenSSL's, before it signs anything.
    const probe = new Uint8Array(301).map((_, i) => (i * 151 + 7) & 255);
    if (bytesEqual(pk, publicKey) && bytesEqual(sodiumKey.sign(probe), openssl.sign(probe))) {
      return sodiumKey;
    }
  } catch {
    // A libsodium that loads but fails: OpenSSL.
  }
  return openssl;
}
