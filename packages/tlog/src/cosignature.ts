// tlog-cosignature: timestamped Ed25519 checkpoint cosignatures (cosignature/v1, type 0x04).
import { type CryptoBackend, getBackend } from '@wai-steering/wire';
import {
  checkCosignatureTimestamp,
  cosignatureMessageOf,
  joinTimestamped,
  splitTimestamped,
} from './internal/cosig.js';
import { utf8 } from './internal/text.js';
import {
  checkText,
  type NoteSignature,
  type NoteSigner,
  SIGNATURE_TYPE,
  type VerifierKey,
  verifierKey,
} from './note.js';

/** A witness's cosigning key: its name, key ID and vkey (type 0x04). */
export interface Cosigner {
  readonly name: string;
  readonly keyId: number;
  readonly verifierKey: VerifierKey;
  /**
   * The cosignature of a checkpoint's note text at `timestamp` (POSIX seconds, 1 to 2^63 − 1):
   * a note signature whose bytes are the u64 big-endian timestamp and the Ed25519 signature of
   * `cosignature/v1\ntime <timestamp>\n` followed by the text.
   */
  cosign(text: string, timestamp: bigint): NoteSignature;
  /** The same as a {@link NoteSigner} at one timestamp, for `signNote`. */
  signerAt(timestamp: bigint): NoteSigner;
}

/** A cosigner (tlog-cosignature, Ed25519) from its name and 32-byte Ed25519 secret key. */
export function cosigner(name: string, secretKey: Uint8Array, backend?: CryptoBackend): Cosigner {
  const b = backend ?? getBackend();
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError('cosigner: expected a 32-byte Ed25519 secret key');
  }
  const key = verifierKey(name, SIGNATURE_TYPE.cosignatureV1, b.publicKey(secretKey), b);
  const secret = secretKey.slice();
  const sign = (message: Uint8Array, timestamp: bigint): Uint8Array =>
    joinTimestamped(timestamp, b.sign(secret, cosignatureMessageOf(timestamp, message)));
  return {
    name,
    keyId: key.keyId,
    verifierKey: key,
    cosign(text: string, timestamp: bigint): NoteSignature {
      checkText(text, 'cosign');
      checkCosignatureTimestamp(timestamp, 'cosign');
      return { name, keyId: key.keyId, signature: sign(utf8(text), timestamp) };
    },
    signerAt(timestamp: bigint): NoteSigner {
      checkCosignatureTimestamp(timestamp, 'signerAt');
      return { name, keyId: key.keyId, sign: (message: Uint8Array) => sign(message, timestamp) };
    },
  };
}

/**
 * The timestamp of a cosignature/v1 note signature (u64 big-endian after the key ID), without
 * verifying it; `undefined` when its bytes are not a v1 `timestamped_signature`.
 */
export function cosignatureTimestamp(signature: NoteSignature): bigint | undefined {
  if (
    signature === null ||
    typeof signature !== 'object' ||
    !(signature.signature instanceof Uint8Array)
  ) {
    throw new TypeError('cosignatureTimestamp: expected a NoteSignature');
  }
  return splitTimestamped(signature.signature)?.timestamp;
}
