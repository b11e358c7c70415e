// The decision log's entries, and tlog-tiles' entry bundles.
import { type CryptoBackend, type Decision, digestOf } from '@wai-steering/wire';
import { checkU64 } from './internal/hash.js';
import { attempt } from './internal/result.js';
import { TlogRefusal, type TlogResult } from './refusal.js';

/** The length of an entry of the decision log: `t` (u64 little-endian), then a digest. */
export const ENTRY_LENGTH = 40;

/** An entry of the decision log: a decision's `t` and its digest (C1, SHA-256 over its body). */
export interface Entry {
  readonly t: bigint;
  readonly digest: Uint8Array;
}

/** The 40 bytes of an entry: `t` as a u64 little-endian, then the 32-byte digest. */
export function encodeEntry(entry: Entry): Uint8Array {
  if (entry === null || typeof entry !== 'object')
    throw new TypeError('encodeEntry: expected { t, digest }');
  checkU64(entry.t, 'encodeEntry: t');
  if (!(entry.digest instanceof Uint8Array) || entry.digest.length !== 32) {
    throw new TypeError('encodeEntry: digest: expected 32 bytes');
  }
  const out = new Uint8Array(ENTRY_LENGTH);
  new DataView(out.buffer).setBigUint64(0, entry.t, true);
  out.set(entry.digest, 8);
  return out;
}

/** The entry of a decision as read by `readDecision`: its `t` and its digest. */
export function entryOfDecision(decision: Decision, backend?: CryptoBackend): Uint8Array {
  return encodeEntry({ t: decision.t, digest: digestOf(decision, backend) });
}

/** Reads a 40-byte entry; refuses (`malformed`) any other length. */
export function readEntry(bytes: Uint8Array): TlogResult<Entry> {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('readEntry: expected a Uint8Array');
  return attempt(() => {
    if (bytes.length !== ENTRY_LENGTH) {
      throw new TlogRefusal(
        'malformed',
        { what: 'entry' },
        `${bytes.length} bytes, not ${ENTRY_LENGTH}`,
      );
    }
    const copy = bytes.slice();
    const t = new DataView(copy.buffer).getBigUint64(0, true);
    return { t, digest: copy.subarray(8) };
  });
}

/** The most entries a bundle holds: a full tile's width. */
const BUNDLE_WIDTH = 256;
/** The longest entry a bundle can carry: its length is a big-endian u16. */
const MAX_ENTRY = 0xffff;

/**
 * tlog-tiles: an entry bundle, "sequences of big-endian uint16 length-prefixed log entries"
 * (1 to 256 of them).
 */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  if (!Array.isArray(entries))
    throw new TypeError('encodeEntryBundle: expected an array of entries');
  if (entries.length === 0 || entries.length > BUNDLE_WIDTH) {
    throw new TypeError(
      `encodeEntryBundle: expected 1 to ${BUNDLE_WIDTH} entries, got ${entries.length}`,
    );
  }
  let total = 0;
  for (const e of entries) {
    if (!(e instanceof Uint8Array))
      throw new TypeError('encodeEntryBundle: an entry is not a Uint8Array');
    if (e.length > MAX_ENTRY)
      throw new TypeError(`encodeEntryBundle: an entry of ${e.length} bytes`);
    total += 2 + e.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    out[at] = e.length >> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/**
 * Reads an entry bundle strictly: length-prefixed entries to the last byte, no byte left over,
 * 1 to 256 of them, and exactly `width` when it is given (a partial bundle's `.p/<W>`, 256 for a
 * full one). The entries are copies.
 */
export function readEntryBundle(bytes: Uint8Array, width?: number): TlogResult<Uint8Array[]> {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('readEntryBundle: expected a Uint8Array');
  if (width !== undefined && (!Number.isInteger(width) || width < 1 || width > BUNDLE_WIDTH)) {
    throw new TypeError(`readEntryBundle: width must be 1 to ${BUNDLE_WIDTH}`);
  }
  return attempt(() => {
    const copy = bytes.slice();
    const out: Uint8Array[] = [];
    let at = 0;
    while (at < copy.length) {
      if (out.length === BUNDLE_WIDTH) {
        throw new TlogRefusal(
          'malformed',
          { what: 'entry bundle', offset: at },
          'more than 256 entries',
        );
      }
      if (copy.length - at < 2) {
        throw new TlogRefusal(
          'malformed',
          { what: 'entry bundle', offset: at },
          'a truncated length',
        );
      }
      const n = (copy[at]! << 8) | copy[at + 1]!;
      if (copy.length - at - 2 < n) {
        throw new TlogRefusal(
          'malformed',
          { what: 'entry bundle', offset: at },
          'a truncated entry',
        );
      }
      out.push(copy.subarray(at + 2, at + 2 + n));
      at += 2 + n;
    }
    if (out.length === 0) throw new TlogRefusal('malformed', { what: 'entry bundle' }, 'no entry');
    if (width !== undefined && out.length !== width) {
      throw new TlogRefusal(
        'malformed',
        { what: 'entry bundle' },
        `${out.length} entries, not ${width}`,
      );
    }
    return out;
  });
}
