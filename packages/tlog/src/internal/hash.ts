// The hashing the package's modules share, without argument checks: for hashes this package
// made or has checked.
import type { CryptoBackend } from '@wai-steering/wire';

/** The size of every hash of the tree: SHA-256's 32 bytes. */
export const HASH_SIZE = 32;

// One buffer for every node hash: the backends hash synchronously and keep nothing.
const nodeInput = new Uint8Array(1 + 2 * HASH_SIZE);
nodeInput[0] = 0x01;

/** RFC 6962 §2.1: SHA-256(0x01 ‖ left ‖ right). */
export function hashChildren(
  left: Uint8Array,
  right: Uint8Array,
  backend: CryptoBackend,
): Uint8Array {
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_SIZE);
  return backend.sha256(nodeInput);
}

/** node(h1, node(h2, … node(h_{r−1}, h_r))): the MTH of a range from its complete subtrees. */
export function foldRight(hashes: readonly Uint8Array[], backend: CryptoBackend): Uint8Array {
  let acc = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) acc = hashChildren(hashes[i]!, acc, backend);
  return acc;
}

/**
 * The MTH of `count` (a power of two) consecutive hashes of 32 bytes in `bytes` from hash
 * `first`: a complete subtree inside a tile.
 */
export function subtreeInTile(
  bytes: Uint8Array,
  first: number,
  count: number,
  backend: CryptoBackend,
): Uint8Array {
  let level: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const at = (first + i) * HASH_SIZE;
    level.push(bytes.subarray(at, at + HASH_SIZE));
  }
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(hashChildren(level[i]!, level[i + 1]!, backend));
    level = next;
  }
  return level[0]!;
}

export function isHash(h: unknown): h is Uint8Array {
  return h instanceof Uint8Array && h.length === HASH_SIZE;
}

/** Caller misuse: a `TypeError` unless `h` is 32 bytes. */
export function assertHash(h: unknown, what: string): asserts h is Uint8Array {
  if (!isHash(h)) throw new TypeError(`${what}: expected a 32-byte Uint8Array`);
}

/** Caller misuse: a `TypeError` unless `v` is a u64 bigint. */
export function checkU64(v: unknown, what: string): asserts v is bigint {
  if (typeof v !== 'bigint' || v < 0n || v >> 64n !== 0n) {
    throw new TypeError(`${what}: expected a u64 bigint, got ${String(v)}`);
  }
}
