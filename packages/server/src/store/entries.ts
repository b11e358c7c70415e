/**
 * Byte layouts both backends share: the decisions' lookup key, and the decision log's entries
 * and entry bundles (`docs/server.md`, *The decision log*).
 */

/** The decision log's entry of a decision: its tail's `t` (8 bytes, u64 LE), then its digest. */
export const ENTRY = 40;

/** Pending entries of the log are written this many to a row at most (the backfills' rows). */
export const PENDING_ROW = 4096;

/** The first 8 bytes of a digest as a signed 64-bit integer: the decisions' lookup key. */
export function keyOf(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigInt64(0, false);
}

/** The entries of an entry bundle the log wrote (big-endian u16 lengths, 40 bytes each). */
export function bundleEntries(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at + 2 + ENTRY <= data.length; at += 2 + ENTRY) {
    out.push(data.subarray(at + 2, at + 2 + ENTRY));
  }
  return out;
}

/** Entry `i` of an entry bundle the log wrote. */
export function bundleEntry(data: Uint8Array, i: number): Uint8Array | undefined {
  const at = i * (2 + ENTRY);
  return at + 2 + ENTRY <= data.length ? data.subarray(at + 2, at + 2 + ENTRY) : undefined;
}
