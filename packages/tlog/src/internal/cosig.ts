// tlog-cosignature, the Ed25519 (v1) cosignature's bytes: shared by the note verifier (which
// verifies type 0x04 signatures) and the cosigner.
import { utf8 } from './text.js';

/** tlog-cosignature: the timestamp "MUST NOT exceed 2^63 - 1". */
export const MAX_TIMESTAMP: bigint = (1n << 63n) - 1n;

/** The length of a v1 `timestamped_signature`: a u64 timestamp and an Ed25519 signature. */
export const COSIGNATURE_V1_LENGTH = 8 + 64;

/**
 * tlog-cosignature, "Ed25519 signed message": `cosignature/v1`, `time <timestamp>`, each line
 * newline-terminated, then the whole checkpoint body (with its final newline).
 */
export function cosignatureMessage(timestamp: bigint, text: string): Uint8Array {
  return utf8(`cosignature/v1\ntime ${timestamp}\n${text}`);
}

/** The u64 big-endian timestamp and the Ed25519 signature of a `timestamped_signature`. */
export function splitTimestamped(
  bytes: Uint8Array,
): { timestamp: bigint; signature: Uint8Array } | undefined {
  if (bytes.length !== COSIGNATURE_V1_LENGTH) return undefined;
  const timestamp = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, false);
  return { timestamp, signature: bytes.subarray(8) };
}

/** A `timestamped_signature`: the timestamp (u64 big-endian), then the signature. */
export function joinTimestamped(timestamp: bigint, signature: Uint8Array): Uint8Array {
  const out = new Uint8Array(COSIGNATURE_V1_LENGTH);
  new DataView(out.buffer).setBigUint64(0, timestamp, false);
  out.set(signature, 8);
  return out;
}

/** Caller misuse: a cosignature's timestamp is a bigint from 1 to 2^63 − 1. */
export function checkCosignatureTimestamp(
  timestamp: unknown,
  what: string,
): asserts timestamp is bigint {
  // tlog-witness: "The cosignature MUST NOT omit the timestamp, i.e. the timestamp MUST NOT be zero."
  if (typeof timestamp !== 'bigint' || timestamp < 1n || timestamp > MAX_TIMESTAMP) {
    throw new TypeError(`${what}: a timestamp is a bigint from 1 to 2^63 − 1 (POSIX seconds)`);
  }
}

/** The cosigned message from the note text's UTF-8 bytes. */
export function cosignatureMessageOf(timestamp: bigint, message: Uint8Array): Uint8Array {
  const head = utf8(`cosignature/v1\ntime ${timestamp}\n`);
  const out = new Uint8Array(head.length + message.length);
  out.set(head);
  out.set(message, head.length);
  return out;
}
