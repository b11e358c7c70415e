import type { CryptoBackend } from './crypto/backend.js';
import { getBackend } from './crypto/index.js';

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
