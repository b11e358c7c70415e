// The batch's leaves: RFC 6962 §2.1's leaf hashes, SHA-256(0x00 ‖ entry).
import type { TreeHashing } from '../../tree-hashing.js';
import { HASH_SIZE } from '../hash.js';
import { hashesOf, scratchOf } from './hashing.js';

/**
 * The leaf hashes of `entries`, one after the other (32 bytes each): each run of entries of one
 * length hashed in one call (a log's entries usually all have one length).
 */
export function leafHashesOf(entries: readonly Uint8Array[], hashing: TreeHashing): Uint8Array {
  const leaves = new Uint8Array(entries.length * HASH_SIZE);
  for (let i = 0; i < entries.length; ) {
    const length = entries[i]!.length;
    let j = i + 1;
    while (j < entries.length && entries[j]!.length === length) j++;
    const run = scratchOf(0, (j - i) * length);
    for (let k = i; k < j; k++) run.set(entries[k]!, (k - i) * length);
    leaves.set(hashesOf(hashing.leafHashes(run, j - i, length), j - i), i * HASH_SIZE);
    i = j;
  }
  return leaves;
}
