import type { CryptoBackend } from './crypto/backend.js';
import { getBackend } from './crypto/index.js';

/**
 * SHA-256 of raw bytes on the backend the records use (`nodeBackend`'s one-shot `crypto.hash` when
 * it is installed, noble's elsewhere): §6.3's draw, §7.3's digest of bytes before `sig`, and any
 * other digest of bytes that are not a read record.
 */
export function sha256(bytes: Uint8Array, backend?: CryptoBackend): Uint8Array {
  return (backend ?? getBackend()).sha256(bytes);
}

/** C1: a record's digest, SHA-256 over its bytes before `sig`. */
export function digestOf(
  record: { readonly body: Uint8Array },
  backend?: CryptoBackend,
): Uint8Array {
  return (backend ?? getBackend()).sha256(record.body);
}

/** C3: the room id, the room descriptor's digest. */
export function roomIdOf(room: { readonly body: Uint8Array }, backend?: CryptoBackend): Uint8Array {
  return digestOf(room, backend);
}
