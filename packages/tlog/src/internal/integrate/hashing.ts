// How an integration hashes: through a backend's batch hashing (`TreeHashing`) when it has one,
// else one `sha256` call a message; and the buffers it fills with what is hashed.
import type { CryptoBackend } from '@wai-steering/wire';
import type { TreeHashing } from '../../tree-hashing.js';
import { HASH_SIZE } from '../hash.js';

/**
 * Two buffers reused for what is hashed (a run of entries, a height's pairs): a backend hashes
 * synchronously and keeps nothing of its input, and a new buffer of this size for each costs
 * more than a small batch's hashing.
 */
const scratch = [new Uint8Array(4096), new Uint8Array(4096)];

/** The first `bytes` bytes of scratch buffer `k`, grown as needed. */
export function scratchOf(k: 0 | 1, bytes: number): Uint8Array {
  if (scratch[k]!.length < bytes)
    scratch[k] = new Uint8Array(Math.max(bytes, 2 * scratch[k]!.length));
  return scratch[k]!.subarray(0, bytes);
}

/** The batch hashing made for a backend without its own, per backend. */
const oneByOne = new WeakMap<CryptoBackend, TreeHashing>();
/** The message hashed, reused: the backends hash synchronously and keep nothing. */
let message = new Uint8Array(1 + 2 * HASH_SIZE);

/** The backend's batch hashing, else one `sha256` call a message. */
export function treeHashingOf(b: CryptoBackend & Partial<TreeHashing>): TreeHashing {
  if (typeof b.leafHashes === 'function' && typeof b.nodeHashes === 'function') {
    return b as TreeHashing;
  }
  let made = oneByOne.get(b);
  if (made !== undefined) return made;
  const each = (prefix: number, data: Uint8Array, count: number, length: number) => {
    const out = new Uint8Array(count * HASH_SIZE);
    if (message.length < 1 + length) message = new Uint8Array(1 + length);
    const m = message.length === 1 + length ? message : message.subarray(0, 1 + length);
    m[0] = prefix;
    for (let i = 0; i < count; i++) {
      // Copied byte by byte: a view of each message would cost more than its 40 or 64 bytes.
      for (let j = 0, at = i * length; j < length; j++) m[1 + j] = data[at + j]!;
      out.set(b.sha256(m), i * HASH_SIZE);
    }
    return out;
  };
  made = {
    leafHashes: (entries, count, length) => each(0x00, entries, count, length),
    nodeHashes: (pairs, count) => each(0x01, pairs, count, 2 * HASH_SIZE),
  };
  oneByOne.set(b, made);
  return made;
}

/** A backend's batch of `count` hashes, checked for its length. */
export function hashesOf(bytes: Uint8Array, count: number): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== count * HASH_SIZE) {
    throw new TypeError(`integrate: the backend gave no ${count} hashes of 32 bytes`);
  }
  return bytes;
}
