import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { assertBytes } from '../internal/bytes.js';
import type { CryptoBackend, VerifyOutcome } from './backend.js';
import { verifyStrict } from './strict.js';

function secretKey32(secretKey: Uint8Array): Uint8Array {
  assertBytes(secretKey, 'secretKey');
  if (secretKey.length !== 32) throw new RangeError('secretKey: expected 32 bytes');
  return secretKey;
}

/**
 * The portable backend: RFC 8032 signing with `@noble/curves`, SHA-256 with `@noble/hashes`,
 * and companion C2's strict verification (`verifyStrict`, steps 1 to 5).
 */
export const nobleBackend: CryptoBackend = Object.freeze({
  name: 'noble',
  publicKey(secretKey: Uint8Array): Uint8Array {
    return ed25519.getPublicKey(secretKey32(secretKey));
  },
  sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
    assertBytes(message, 'message');
    return ed25519.sign(message, secretKey32(secretKey));
  },
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): VerifyOutcome {
    return verifyStrict(publicKey, message, signature);
  },
  sha256(data: Uint8Array): Uint8Array {
    assertBytes(data, 'data');
    return sha256(data);
  },
});
