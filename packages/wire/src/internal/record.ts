import type { CryptoBackend } from '../crypto/backend.js';
import { getBackend } from '../crypto/index.js';
import { signingLength, signingMessage, writeSigningMessage } from '../domain.js';
import { bytesEqual } from '../hex.js';
import { type Magic, Refusal, type Result } from '../refusal.js';
import { assertBytes, ByteReader } from './bytes.js';

/** A record as read: its fields, its `sig`, and the bytes its digest covers. */
export type Signed<T> = T & {
  /** The 64 bytes of `sig`. */
  readonly sig: Uint8Array;
  /** The record's bytes before `sig` (C1): what its digest and signature cover. */
  readonly body: Uint8Array;
};

/**
 * C1: reads `bytes` with `readFields`, then `sig`, then refuses bytes left over; then checks
 * the record's own rules. Only a {@link Refusal} is caught; anything else is a bug.
 */
export function readRecord<T>(
  input: Uint8Array,
  magic: Magic,
  readFields: (r: ByteReader) => T,
  rules: (value: T, r: ByteReader) => void,
): Result<Signed<T>> {
  if (!(input instanceof Uint8Array)) assertBytes(input, `read ${magic}`); // the message built on misuse only
  // Copy the input before checking it, so that a caller cannot change it under us.
  const bytes = input.slice();
  const r = new ByteReader(bytes, magic);
  let fields: T;
  let sig: Uint8Array;
  let bodyEnd: number;
  try {
    r.header();
    fields = readFields(r);
    bodyEnd = r.pos;
    sig = r.signature();
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, refusal: e };
    throw e;
  }
  // C1: the record's rules only after a complete read.
  try {
    rules(fields, r);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    // Place the refusal: read again, noting where each field begins.
    const traced = new ByteReader(bytes, magic);
    traced.trace = new Map();
    traced.header();
    try {
      rules(readFields(traced), traced);
    } catch (again) {
      if (again instanceof Refusal) return { ok: false, refusal: again };
      throw again;
    }
    return { ok: false, refusal: e };
  }
  // The fields read, with `sig` and `body` set on them (a fresh object: no copy of its fields).
  const value = fields as T & { sig: Uint8Array; body: Uint8Array };
  value.sig = sig;
  value.body = bytes.subarray(0, bodyEnd);
  return { ok: true, value };
}

/** Unwraps a result: the value, or the refusal thrown. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw result.refusal;
}

/** C2: signs `body` of a record under its domain; the full record's bytes. */
export function sealRecord(
  magic: Magic,
  body: Uint8Array,
  secretKey: Uint8Array,
  signer: Uint8Array,
  backend: CryptoBackend,
): Uint8Array {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new TypeError(`sign ${magic}: the secret key must be 32 bytes`);
  }
  const pub = backend.publicKey(secretKey);
  if (!bytesEqual(pub, signer)) {
    throw new TypeError(`sign ${magic}: the secret key is not the record's signing key`);
  }
  const sig = backend.sign(secretKey, signingMessage(magic, body));
  const out = new Uint8Array(body.length + 64);
  out.set(body);
  out.set(sig, body.length);
  return out;
}

/** The most bytes of a message {@link checkSignature} writes into its buffer. */
const MESSAGE_SCRATCH = 1 << 16;
let scratch: Uint8Array | undefined;
let scratchBusy = false;

/** C2: strict verification of a record's signature by `key`; a refusal, or `undefined`. */
export function checkSignature(
  magic: Magic,
  body: Uint8Array,
  sig: Uint8Array,
  key: Uint8Array,
  backend: CryptoBackend,
): Refusal | undefined {
  // The message written into a buffer kept for the purpose (a verification is synchronous),
  // rather than a new one each time: most records are verified, and most are small.
  // (A backend that verified again from inside `verify` gets a message of its own.)
  const n = signingLength(magic, body);
  const own = scratchBusy || n > MESSAGE_SCRATCH;
  let outcome: ReturnType<CryptoBackend['verify']>;
  if (own) {
    outcome = backend.verify(key, signingMessage(magic, body), sig);
  } else {
    scratch ??= new Uint8Array(MESSAGE_SCRATCH);
    scratchBusy = true;
    try {
      outcome = backend.verify(key, writeSigningMessage(magic, body, scratch), sig);
    } finally {
      scratchBusy = false;
    }
  }
  if (outcome === 'ok') return undefined;
  return new Refusal(outcome, { magic, field: outcome === 'bad_key' ? 'key' : 'sig' });
}

/** The body followed by 64 zero bytes: a record that reads, to check its rules before signing. */
export function withPlaceholderSig(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 64);
  out.set(body);
  return out;
}

/** Options of the `signX` functions of the records. */
export interface SignOptions {
  /** The crypto backend; the default backend when absent. */
  readonly backend?: CryptoBackend;
  /** Check the record's rules before signing (default true): an invalid record throws its refusal. */
  readonly check?: boolean;
}

/**
 * A record's signed bytes: `body` (its bytes before `sig`) signed by `secretKey`, whose public key
 * must be `signer`; the record's rules checked first by its reader (the refusal thrown) unless
 * `options.check` is false.
 */
export function signRecord(
  magic: Magic,
  body: Uint8Array,
  read: (bytes: Uint8Array) => Result<unknown>,
  signer: Uint8Array,
  secretKey: Uint8Array,
  options: SignOptions,
): Uint8Array {
  if (options.check !== false) unwrap(read(withPlaceholderSig(body)));
  return sealRecord(magic, body, secretKey, signer, options.backend ?? getBackend());
}

/**
 * The `signX` function of a record: its fields encoded (`encode`), checked by its reader (`read`)
 * and signed by the key `signerOf` names (`signRecord`).
 */
export function recordSigner<F>(
  magic: Magic,
  encode: (fields: F) => Uint8Array,
  read: (bytes: Uint8Array) => Result<unknown>,
  signerOf: (fields: F) => Uint8Array,
): (fields: F, secretKey: Uint8Array, options?: SignOptions) => Uint8Array {
  return (fields, secretKey, options = {}) =>
    signRecord(magic, encode(fields), read, signerOf(fields), secretKey, options);
}

/** The `verifyXSignature` function of a record: C2 strict verification by the key `keyOf` names. */
export function signatureVerifier<
  R extends { readonly body: Uint8Array; readonly sig: Uint8Array },
>(
  magic: Magic,
  keyOf: (record: R) => Uint8Array,
): (record: R, backend?: CryptoBackend) => Refusal | undefined {
  return (record, backend) =>
    checkSignature(magic, record.body, record.sig, keyOf(record), backend ?? getBackend());
}
