/**
 * Every key of the corpus, derived from a fixed label: secret = SHA-256("wai-conformance:" ‖
 * label), public = its RFC 8032 public key. Nothing is random; the same label gives the same key
 * in every run and every implementation.
 */
import { nobleBackend } from '@wai-steering/wire';

const encoder = new TextEncoder();

/** A key of the corpus: its label, its 32-byte secret and its public key. */
export interface KeyPair {
  readonly label: string;
  readonly secret: Uint8Array;
  readonly pub: Uint8Array;
}

const cache = new Map<string, KeyPair>();

/** SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Text(text: string): Uint8Array {
  return nobleBackend.sha256(encoder.encode(text));
}

/** The key of `label`: secret = SHA-256("wai-conformance:" ‖ label). */
export function keyOf(label: string): KeyPair {
  let k = cache.get(label);
  if (k === undefined) {
    const secret = sha256Text(`wai-conformance:${label}`);
    k = { label, secret, pub: nobleBackend.publicKey(secret) };
    cache.set(label, k);
  }
  return k;
}

/**
 * A public key of small order: the encoding of the identity point (y = 1, x = 0), 0x01 then 31
 * zero bytes. It decodes (companion C2 step 1) but [8]A is the identity (step 2): `bad_key`.
 */
export const IDENTITY_POINT: Uint8Array = (() => {
  const out = new Uint8Array(32);
  out[0] = 1;
  return out;
})();
