/** The outcome of a strict verification (companion C2): the first step that fails decides. */
export type VerifyOutcome = 'ok' | 'bad_key' | 'bad_signature';

/**
 * What `wire` needs of cryptography. Every backend gives the same bytes and the same outcomes
 * (signing is RFC 8032's, deterministic; verification is companion C2's strict rule).
 */
export interface CryptoBackend {
  readonly name: string;
  /** The RFC 8032 public key of a 32-byte secret key. */
  publicKey(secretKey: Uint8Array): Uint8Array;
  /** The RFC 8032 signature (64 bytes) of `message` by the 32-byte `secretKey`. */
  sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array;
  /** Companion C2, steps 1 to 5. */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): VerifyOutcome;
  /** SHA-256 (FIPS 180-4). */
  sha256(data: Uint8Array): Uint8Array;
}
