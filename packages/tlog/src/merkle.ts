// RFC 6962 §2.1 Merkle Tree Hashes, with RFC 9162 §2.1.3.2 and §2.1.4.2 for the verification of
// inclusion and consistency proofs. tlog-tiles: "all Merkle tree cryptographic operations are as
// specified by RFC 6962 … The hashing algorithm is defined to be SHA-256."
import { bytesEqual, type CryptoBackend, getBackend } from '@wai-steering/wire';
import { assertHash, checkU64, foldRight, hashChildren, isHash } from './internal/hash.js';
import {
  consistencyRanges,
  inclusionRanges,
  type Range,
  type Subtree,
  subtreesOf,
} from './internal/ranges.js';
import { TlogRefusal } from './refusal.js';

export { HASH_SIZE } from './internal/hash.js';

const LEAF_PREFIX = 0x00;

/** RFC 6962 §2.1: the leaf hash, SHA-256(0x00 ‖ entry). */
export function leafHash(entry: Uint8Array, backend?: CryptoBackend): Uint8Array {
  if (!(entry instanceof Uint8Array)) throw new TypeError('leafHash: expected a Uint8Array entry');
  const input = new Uint8Array(1 + entry.length);
  input[0] = LEAF_PREFIX;
  input.set(entry, 1);
  return (backend ?? getBackend()).sha256(input);
}

/** RFC 6962 §2.1: the interior node hash, SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array, backend?: CryptoBackend): Uint8Array {
  assertHash(left, 'nodeHash: left');
  assertHash(right, 'nodeHash: right');
  return hashChildren(left, right, backend ?? getBackend());
}

/** RFC 6962 §2.1: the hash of the empty tree, "the hash of an empty string". */
export function emptyRoot(backend?: CryptoBackend): Uint8Array {
  return (backend ?? getBackend()).sha256(new Uint8Array(0));
}

/**
 * RFC 6962 §2.1: MTH(D[n]) of the leaves whose leaf hashes are given, in order. Linear: each
 * leaf joins a stack of complete subtrees, equal neighbours merge, and the stack folds from the
 * right at the end, as MTH splits at the largest power of two.
 */
export function rootOf(leafHashes: readonly Uint8Array[], backend?: CryptoBackend): Uint8Array {
  const b = backend ?? getBackend();
  if (!Array.isArray(leafHashes)) throw new TypeError('rootOf: expected an array of leaf hashes');
  if (leafHashes.length === 0) return emptyRoot(b);
  const stack: Uint8Array[] = [];
  for (let i = 0; i < leafHashes.length; i++) {
    const h = leafHashes[i];
    assertHash(h, `rootOf: leaf hash ${i}`);
    let node: Uint8Array = h;
    // Merge while the number of leaves so far has a 1 in the place just completed.
    for (let n = i; (n & 1) === 1; n >>>= 1) node = hashChildren(stack.pop()!, node, b);
    stack.push(node);
  }
  return foldRight(stack, b);
}

/**
 * A source of complete-subtree hashes: the MTH of the leaves `[index · 2^level, (index + 1) ·
 * 2^level)`, a leaf hash at level 0. A log answers from its tiles (see `TileHashReader`, which
 * does it asynchronously) or from memory.
 */
export type SubtreeSource = (level: number, index: bigint) => Uint8Array;

/** The root at `size` from a source of complete-subtree hashes (the empty root at 0). */
export function treeRoot(size: bigint, source: SubtreeSource, backend?: CryptoBackend): Uint8Array {
  checkU64(size, 'treeRoot: size');
  const b = backend ?? getBackend();
  if (size === 0n) return emptyRoot(b);
  return rangeHash([0n, size], source, b);
}

/**
 * RFC 6962 §2.1.1: the inclusion proof (audit path) of the leaf at `index` in the tree of `size`
 * leaves, from the leaf's sibling up, from a source of complete-subtree hashes.
 */
export function proveInclusion(
  index: bigint,
  size: bigint,
  source: SubtreeSource,
  backend?: CryptoBackend,
): Uint8Array[] {
  checkU64(index, 'proveInclusion: index');
  checkU64(size, 'proveInclusion: size');
  if (index >= size)
    throw new TypeError(`proveInclusion: index ${index} is not below size ${size}`);
  const b = backend ?? getBackend();
  return inclusionRanges(index, size).map((r) => rangeHash(r, source, b));
}

/**
 * RFC 6962 §2.1.2: the consistency proof from the tree of `oldSize` leaves to the tree of
 * `newSize` leaves (empty when the sizes are equal or `oldSize` is 0), from a source of
 * complete-subtree hashes.
 */
export function proveConsistency(
  oldSize: bigint,
  newSize: bigint,
  source: SubtreeSource,
  backend?: CryptoBackend,
): Uint8Array[] {
  checkU64(oldSize, 'proveConsistency: oldSize');
  checkU64(newSize, 'proveConsistency: newSize');
  if (oldSize > newSize) {
    throw new TypeError(`proveConsistency: oldSize ${oldSize} is above newSize ${newSize}`);
  }
  if (oldSize === 0n) return [];
  const b = backend ?? getBackend();
  return consistencyRanges(oldSize, newSize).map((r) => rangeHash(r, source, b));
}

function rangeHash(range: Range, source: SubtreeSource, backend: CryptoBackend): Uint8Array {
  const hashes = subtreesOf(range[0], range[1]).map((t: Subtree) => {
    const h = source(t.level, t.index);
    assertHash(h, `source(${t.level}, ${t.index})`);
    return h;
  });
  return foldRight(hashes, backend);
}

/** What {@link verifyInclusion} checks. */
export interface InclusionInput {
  /** The leaf hash of the entry (RFC 6962 §2.1, SHA-256(0x00 ‖ entry)). */
  readonly leafHash: Uint8Array;
  readonly index: bigint;
  readonly size: bigint;
  readonly proof: readonly Uint8Array[];
  readonly root: Uint8Array;
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` proves the leaf hash at `index` in the tree of `size`
 * leaves whose root is `root`. A `TlogRefusal` (`bad_proof`) when it does not, `undefined` when
 * it does. Exact: an index at or above the size, a hash not of 32 bytes, a proof one hash too
 * short or too long, all refuse.
 */
export function verifyInclusion(
  input: InclusionInput,
  backend?: CryptoBackend,
): TlogRefusal | undefined {
  const { leafHash: leaf, index, size, proof, root } = input;
  checkU64(index, 'verifyInclusion: index');
  checkU64(size, 'verifyInclusion: size');
  checkHashes(proof, 'verifyInclusion: proof');
  const where = { what: 'inclusion' };
  if (!isHash(leaf)) return new TlogRefusal('bad_proof', where, 'the leaf hash is not 32 bytes');
  if (!isHash(root)) return new TlogRefusal('bad_proof', where, 'the root is not 32 bytes');
  for (const p of proof) {
    if (!isHash(p)) return new TlogRefusal('bad_proof', where, 'a proof hash is not 32 bytes');
  }
  // Step 1: "If leaf_index >= tree_size, then fail."
  if (index >= size) return new TlogRefusal('bad_proof', where, `index ${index} ≥ size ${size}`);
  const b = backend ?? getBackend();
  // Steps 2 and 3.
  let fn = index;
  let sn = size - 1n;
  let r = leaf;
  // Step 4.
  for (const p of proof) {
    if (sn === 0n) return new TlogRefusal('bad_proof', where, 'the proof is too long');
    if ((fn & 1n) === 1n || fn === sn) {
      r = hashChildren(p, r, b);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = hashChildren(r, p, b);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  // Step 5.
  if (sn !== 0n) return new TlogRefusal('bad_proof', where, 'the proof is too short');
  if (!bytesEqual(r, root)) return new TlogRefusal('bad_proof', where, 'the root does not match');
  return undefined;
}

/** What {@link verifyConsistency} checks. */
export interface ConsistencyInput {
  readonly oldSize: bigint;
  readonly newSize: bigint;
  readonly oldRoot: Uint8Array;
  readonly newRoot: Uint8Array;
  readonly proof: readonly Uint8Array[];
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` proves the tree of `oldSize` leaves with root `oldRoot` a
 * prefix of the tree of `newSize` leaves with root `newRoot`. A `TlogRefusal` (`bad_proof`)
 * when it does not, `undefined` when it does. The cases the algorithm leaves to its caller:
 * `oldSize` above `newSize` refuses; equal sizes need equal roots and an empty proof; an old
 * size of 0 needs the empty tree's root as `oldRoot` and an empty proof (the empty tree is
 * consistent with every tree).
 */
export function verifyConsistency(
  input: ConsistencyInput,
  backend?: CryptoBackend,
): TlogRefusal | undefined {
  const { oldSize, newSize, oldRoot, newRoot, proof } = input;
  checkU64(oldSize, 'verifyConsistency: oldSize');
  checkU64(newSize, 'verifyConsistency: newSize');
  checkHashes(proof, 'verifyConsistency: proof');
  const where = { what: 'consistency' };
  if (!isHash(oldRoot)) return new TlogRefusal('bad_proof', where, 'the old root is not 32 bytes');
  if (!isHash(newRoot)) return new TlogRefusal('bad_proof', where, 'the new root is not 32 bytes');
  for (const p of proof) {
    if (!isHash(p)) return new TlogRefusal('bad_proof', where, 'a proof hash is not 32 bytes');
  }
  if (oldSize > newSize) {
    return new TlogRefusal('bad_proof', where, `old size ${oldSize} > new size ${newSize}`);
  }
  const b = backend ?? getBackend();
  if (oldSize === 0n) {
    if (proof.length !== 0) return new TlogRefusal('bad_proof', where, 'a proof from size 0');
    if (!bytesEqual(oldRoot, emptyRoot(b))) {
      return new TlogRefusal('bad_proof', where, 'the old root is not the empty tree’s');
    }
    if (newSize === 0n && !bytesEqual(newRoot, oldRoot)) {
      return new TlogRefusal('bad_proof', where, 'the new root is not the empty tree’s');
    }
    return undefined;
  }
  if (oldSize === newSize) {
    if (proof.length !== 0)
      return new TlogRefusal('bad_proof', where, 'a proof between equal sizes');
    if (!bytesEqual(oldRoot, newRoot))
      return new TlogRefusal('bad_proof', where, 'the roots differ');
    return undefined;
  }
  // Step 1: "If consistency_path is an empty array, stop and fail."
  if (proof.length === 0) return new TlogRefusal('bad_proof', where, 'the proof is empty');
  // Step 2: "If first is an exact power of 2, then prepend first_hash."
  const path = (oldSize & (oldSize - 1n)) === 0n ? [oldRoot, ...proof] : proof;
  // Step 3.
  let fn = oldSize - 1n;
  let sn = newSize - 1n;
  // Step 4: "If LSB(fn) is set, then right-shift both fn and sn equally until LSB(fn) is not set."
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  // Step 5.
  let fr = path[0]!;
  let sr = path[0]!;
  // Step 6.
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (sn === 0n) return new TlogRefusal('bad_proof', where, 'the proof is too long');
    if ((fn & 1n) === 1n || fn === sn) {
      fr = hashChildren(c, fr, b);
      sr = hashChildren(c, sr, b);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = hashChildren(sr, c, b);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  // Step 7.
  if (sn !== 0n) return new TlogRefusal('bad_proof', where, 'the proof is too short');
  if (!bytesEqual(fr, oldRoot))
    return new TlogRefusal('bad_proof', where, 'the old root does not match');
  if (!bytesEqual(sr, newRoot))
    return new TlogRefusal('bad_proof', where, 'the new root does not match');
  return undefined;
}

function checkHashes(proof: unknown, what: string): void {
  if (!Array.isArray(proof)) throw new TypeError(`${what}: expected an array of Uint8Array`);
  for (const p of proof) {
    if (!(p instanceof Uint8Array)) throw new TypeError(`${what}: expected an array of Uint8Array`);
  }
}
