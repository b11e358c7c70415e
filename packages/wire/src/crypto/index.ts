import type { CryptoBackend } from './backend.js';
import { nobleBackend } from './noble.js';

export type { CryptoBackend, VerifyOutcome } from './backend.js';
export { nobleBackend } from './noble.js';
export {
  BoundedCache,
  challenge,
  checkPublicKey,
  decodeKeyStrict,
  decodePointStrict,
  ED25519_L,
  ED25519_P,
  isCanonicalY,
  isScalarBelowL,
  isSmallOrderEncoding,
  keyId,
  preCheck,
  preCheckKey,
  preCheckSignature,
  verifyStrict,
} from './strict.js';

let current: CryptoBackend = nobleBackend;

/** The backend the records use: `nobleBackend` unless `useBackend` chose another. */
export function getBackend(): CryptoBackend {
  return current;
}

/** Chooses the backend the records use (for example `nodeBackend` of `@wai-steering/wire/node`). */
export function useBackend(backend: CryptoBackend): void {
  if (
    backend === null ||
    typeof backend !== 'object' ||
    typeof backend.publicKey !== 'function' ||
    typeof backend.sign !== 'function' ||
    typeof backend.verify !== 'function' ||
    typeof backend.sha256 !== 'function'
  ) {
    throw new TypeError('useBackend: expected a CryptoBackend');
  }
  current = backend;
}
