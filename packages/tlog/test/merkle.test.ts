import { nobleBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  emptyRoot,
  leafHash,
  nodeHash,
  proveConsistency,
  proveInclusion,
  rootOf,
  type SubtreeSource,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from '../src/index.js';
import { hex, mth, proof as naiveProof, path, sha256, unhex } from './helpers/naive.js';
import {
  CONSISTENCY_NODES,
  CONSISTENCY_PROOFS,
  INCLUSION_NODES,
  INCLUSION_PROOFS,
  LEAF_INPUTS,
  NODE_HASHES,
  type NodeProof,
  ROOT_HASHES,
} from './vectors/rfc6962.js';

const leaves = LEAF_INPUTS.map(unhex);
const leafHashes = leaves.map((l) => leafHash(l));
const roots = ROOT_HASHES.map(unhex);

/** A source of complete subtrees from the published NodeHashes alone. */
const published: SubtreeSource = (level, index) => unhex(NODE_HASHES[level]![Number(index)]!);

/** The hashes of a proof given as node IDs (proof_test.go), hashed on node:crypto. */
function fromNodes(want: NodeProof): string[] {
  const hashes = want.ids.map(([l, i]) => unhex(NODE_HASHES[l]![i]!));
  if (want.rehash === undefined) return hashes.map(hex);
  const [begin, end] = want.rehash;
  let acc = hashes[begin]!;
  for (let i = begin + 1; i < end; i++) acc = sha256(Uint8Array.of(1), hashes[i]!, acc);
  return [...hashes.slice(0, begin), acc, ...hashes.slice(end)].map(hex);
}

const sizes = [1, 2, 3, 4, 5, 6, 7, 8];

describe('RFC 6962 §2.1 hashes, on the reference tree', () => {
  it('gives the published leaf hashes (level 0 of NodeHashes) on both backends', () => {
    expect(leafHashes.map(hex)).toEqual(NODE_HASHES[0]);
    expect(leaves.map((l) => hex(leafHash(l, nodeBackend)))).toEqual(NODE_HASHES[0]);
    expect(leaves.map((l) => hex(leafHash(l, nobleBackend)))).toEqual(NODE_HASHES[0]);
  });

  it('gives every published complete subtree (NodeHashes) as node hashes', () => {
    for (let level = 1; level < NODE_HASHES.length; level++) {
      const below = NODE_HASHES[level - 1]!.map(unhex);
      const got = NODE_HASHES[level]!.map((_, i) =>
        hex(nodeHash(below[2 * i]!, below[2 * i + 1]!)),
      );
      expect(got).toEqual(NODE_HASHES[level]);
    }
  });

  it('gives every published root, sizes 0 to 8, from the leaves and from the published subtrees', () => {
    expect(hex(emptyRoot())).toEqual(ROOT_HASHES[0]);
    for (let n = 0; n <= 8; n++) {
      expect(hex(rootOf(leafHashes.slice(0, n)))).toEqual(ROOT_HASHES[n]);
      expect(hex(treeRoot(BigInt(n), published))).toEqual(ROOT_HASHES[n]);
      // The literal MTH of the test agrees with the published values too.
      expect(hex(mth(leaves.slice(0, n)))).toEqual(ROOT_HASHES[n]);
    }
  });
});

describe('RFC 6962 §2.1.1 inclusion proofs, on the reference tree', () => {
  it('gives the published proofs of verify_test.go, and verifies them', () => {
    for (const v of INCLUSION_PROOFS) {
      const index = BigInt(v.leaf - 1);
      const size = BigInt(v.size);
      expect(proveInclusion(index, size, published).map(hex)).toEqual(v.proof);
      const refusal = verifyInclusion({
        leafHash: leafHashes[v.leaf - 1]!,
        index,
        size,
        proof: v.proof.map(unhex),
        root: roots[v.size]!,
      });
      expect(refusal).toBeUndefined();
    }
  });

  it('gives the published node IDs of proof_test.go', () => {
    for (const v of INCLUSION_NODES) {
      const got = proveInclusion(BigInt(v.index), BigInt(v.size), published).map(hex);
      expect({ size: v.size, index: v.index, proof: got }).toEqual({
        size: v.size,
        index: v.index,
        proof: fromNodes(v.want),
      });
    }
  });

  it('gives, for every leaf of every size 1 to 8, the literal PATH(m, D[n]), which verifies against the published root', () => {
    let count = 0;
    for (const n of sizes) {
      for (let m = 0; m < n; m++) {
        const got = proveInclusion(BigInt(m), BigInt(n), published);
        expect({ m, n, proof: got.map(hex) }).toEqual({
          m,
          n,
          proof: path(m, leaves.slice(0, n)).map(hex),
        });
        const input = {
          leafHash: leafHashes[m]!,
          index: BigInt(m),
          size: BigInt(n),
          proof: got,
          root: roots[n]!,
        };
        expect(verifyInclusion(input)).toBeUndefined();
        expect(verifyInclusion(input, nodeBackend)).toBeUndefined();
        count++;
      }
    }
    expect(count).toEqual(36);
  });
});

describe('RFC 6962 §2.1.2 consistency proofs, on the reference tree', () => {
  it('gives the published proofs of verify_test.go, and verifies them', () => {
    for (const v of CONSISTENCY_PROOFS) {
      const [m, n] = [BigInt(v.size1), BigInt(v.size2)];
      expect(proveConsistency(m, n, published).map(hex)).toEqual(v.proof);
      const input = {
        oldSize: m,
        newSize: n,
        oldRoot: roots[v.size1]!,
        newRoot: roots[v.size2]!,
        proof: v.proof.map(unhex),
      };
      expect(verifyConsistency(input)).toBeUndefined();
    }
  });

  it('gives the published node IDs of proof_test.go', () => {
    for (const v of CONSISTENCY_NODES) {
      const got = proveConsistency(BigInt(v.size1), BigInt(v.size2), published).map(hex);
      expect({ ...v, want: got }).toEqual({ ...v, want: fromNodes(v.want) });
    }
  });

  it('gives, for every pair of sizes 1 ≤ m ≤ n ≤ 8, the literal PROOF(m, D[n]), which verifies against the published roots', () => {
    let count = 0;
    for (const n of sizes) {
      for (let m = 1; m <= n; m++) {
        const got = proveConsistency(BigInt(m), BigInt(n), published);
        expect({ m, n, proof: got.map(hex) }).toEqual({
          m,
          n,
          proof: naiveProof(m, leaves.slice(0, n)).map(hex),
        });
        const input = {
          oldSize: BigInt(m),
          newSize: BigInt(n),
          oldRoot: roots[m]!,
          newRoot: roots[n]!,
          proof: got,
        };
        expect(verifyConsistency(input)).toBeUndefined();
        count++;
      }
    }
    expect(count).toEqual(36);
  });

  it('proves consistency from size 0 to every size with an empty proof', () => {
    for (let n = 0; n <= 8; n++) {
      expect(proveConsistency(0n, BigInt(n), published)).toEqual([]);
      const input = {
        oldSize: 0n,
        newSize: BigInt(n),
        oldRoot: roots[0]!,
        newRoot: roots[n]!,
        proof: [],
      };
      expect(verifyConsistency(input)).toBeUndefined();
    }
  });
});

// The corruptions of verify_test.go's corruptInclusionProof and corruptConsistencyProof, each of
// which must be refused.
const SOME_HASH = unhex('abacaba000000000000000000000000000000000000000000060061e00123456');
const EMPTY_HASH = unhex(ROOT_HASHES[0]!);

function flip(proof: readonly Uint8Array[], i: number, bit: number): Uint8Array[] {
  return proof.map((p, j) => {
    if (j !== i) return p;
    const q = p.slice();
    q[0]! ^= bit;
    return q;
  });
}

describe('inclusion proof verification refuses every corruption', () => {
  for (const n of sizes) {
    for (let m = 0; m < n; m++) {
      it(`leaf ${m} of ${n}`, () => {
        const proof = path(m, leaves.slice(0, n));
        const good = {
          leafHash: leafHashes[m]!,
          index: BigInt(m),
          size: BigInt(n),
          proof,
          root: roots[n]!,
        };
        expect(verifyInclusion(good)).toBeUndefined();
        const probes: [string, typeof good][] = [
          ['index − 1', { ...good, index: good.index - 1n }],
          ['index + 1', { ...good, index: good.index + 1n }],
          ['index ^ 2', { ...good, index: good.index ^ 2n }],
          ['size × 2', { ...good, size: good.size * 2n }],
          ['size / 2', { ...good, size: good.size / 2n }],
          ['wrong leaf', { ...good, leafHash: sha256(new TextEncoder().encode('WrongLeaf')) }],
          ['empty root', { ...good, root: EMPTY_HASH }],
          ['random root', { ...good, root: SOME_HASH }],
          ['trailing garbage', { ...good, proof: [...proof, new Uint8Array(0)] }],
          ['trailing root', { ...good, proof: [...proof, roots[n]!] }],
          ['preceding garbage', { ...good, proof: [new Uint8Array(0), ...proof] }],
          ['preceding root', { ...good, proof: [roots[n]!, ...proof] }],
          ...proof.map((_, i): [string, typeof good] => [
            `proof[${i}] bit 3`,
            { ...good, proof: flip(proof, i, 8) },
          ]),
        ];
        if (proof.length > 0) probes.push(['removed', { ...good, proof: proof.slice(0, -1) }]);
        if (proof.length > 1) {
          probes.push(['inserted', { ...good, proof: [proof[0]!, SOME_HASH, ...proof.slice(1)] }]);
        }
        const accepted = probes
          .filter(([, p]) => p.index >= 0n && verifyInclusion(p) === undefined)
          .map(([d]) => d);
        expect(accepted).toEqual([]);
        for (const [, p] of probes.filter(([, p]) => p.index >= 0n)) {
          expect(verifyInclusion(p)?.reason).toEqual('bad_proof');
        }
      });
    }
  }

  it('refuses an index at or above the size, and any proof of a size-0 tree', () => {
    for (const [index, size] of [
      [0n, 0n],
      [1n, 0n],
      [1n, 1n],
      [2n, 1n],
    ] as const) {
      for (const [leaf, root] of [
        [SOME_HASH, EMPTY_HASH],
        [EMPTY_HASH, EMPTY_HASH],
        [leafHashes[0]!, roots[1]!],
      ] as const) {
        expect(verifyInclusion({ leafHash: leaf, index, size, proof: [], root })?.reason).toEqual(
          'bad_proof',
        );
      }
    }
  });

  it('refuses hashes that are not 32 bytes, and is a TypeError for arguments that are not bigints and bytes', () => {
    const one = { leafHash: leafHashes[0]!, index: 0n, size: 1n, proof: [], root: roots[1]! };
    expect(verifyInclusion(one)).toBeUndefined();
    expect(verifyInclusion({ ...one, root: new Uint8Array(0) })?.reason).toEqual('bad_proof');
    expect(verifyInclusion({ ...one, leafHash: new Uint8Array(31) })?.reason).toEqual('bad_proof');
    expect(() => verifyInclusion({ ...one, index: 0 as unknown as bigint })).toThrow(TypeError);
    expect(() => verifyInclusion({ ...one, size: -1n })).toThrow(TypeError);
    expect(() => verifyInclusion({ ...one, proof: ['x'] as unknown as Uint8Array[] })).toThrow(
      TypeError,
    );
  });
});

describe('consistency proof verification refuses every corruption', () => {
  for (const n of sizes) {
    for (let m = 1; m < n; m++) {
      it(`${m} to ${n}`, () => {
        const proof = naiveProof(m, leaves.slice(0, n));
        const good = {
          oldSize: BigInt(m),
          newSize: BigInt(n),
          oldRoot: roots[m]!,
          newRoot: roots[n]!,
          proof,
        };
        expect(verifyConsistency(good)).toBeUndefined();
        const wrongRoot = sha256(new TextEncoder().encode('WrongRoot'));
        const probes: [string, typeof good][] = [
          ['size1 − 1', { ...good, oldSize: good.oldSize - 1n }],
          ['size1 + 1', { ...good, oldSize: good.oldSize + 1n }],
          ['size1 ^ 2', { ...good, oldSize: good.oldSize ^ 2n }],
          ['size2 × 2', { ...good, newSize: good.newSize * 2n }],
          ['size2 / 2', { ...good, newSize: good.newSize / 2n }],
          ['wrong root1', { ...good, oldRoot: wrongRoot }],
          ['wrong root2', { ...good, newRoot: wrongRoot }],
          ['swapped roots', { ...good, oldRoot: good.newRoot, newRoot: good.oldRoot }],
          ['empty proof', { ...good, proof: [] }],
          ['trailing garbage', { ...good, proof: [...proof, new Uint8Array(0)] }],
          ['trailing root1', { ...good, proof: [...proof, good.oldRoot] }],
          ['trailing root2', { ...good, proof: [...proof, good.newRoot] }],
          ['preceding garbage', { ...good, proof: [new Uint8Array(0), ...proof] }],
          ['preceding root1', { ...good, proof: [good.oldRoot, ...proof] }],
          ['preceding root2', { ...good, proof: [good.newRoot, ...proof] }],
          ['preceding proof[0]', { ...good, proof: [proof[0]!, ...proof] }],
          ['truncated', { ...good, proof: proof.slice(0, -1) }],
          ...proof.map((_, i): [string, typeof good] => [
            `proof[${i}] bit 4`,
            { ...good, proof: flip(proof, i, 16) },
          ]),
        ];
        // Sizes the probe moved to 0 would be a TypeError only if negative; 0 refuses (a proof
        // from size 0 must be empty, and the old root must be the empty tree's).
        const accepted = probes
          .filter(([, p]) => verifyConsistency(p) === undefined)
          .map(([d]) => d);
        expect(accepted).toEqual([]);
      });
    }
  }

  it('decides the edge cases of verify_test.go’s TestVerifyConsistency', () => {
    const r1 = sha256(new TextEncoder().encode("don't care 1"));
    const r2 = sha256(new TextEncoder().encode("don't care 2"));
    const cases: [bigint, bigint, Uint8Array, Uint8Array, Uint8Array[], boolean][] = [
      [0n, 0n, r1, r2, [], false],
      [1n, 1n, r1, r2, [], false],
      [1n, 1n, r2, r2, [], true],
      [1n, 0n, r1, r2, [], false],
      [2n, 1n, r1, r2, [], false],
      [1n, 2n, r1, r2, [], false],
      [0n, 0n, EMPTY_HASH, r2, [], false],
      [1n, 1n, EMPTY_HASH, r2, [], false],
      [0n, 0n, EMPTY_HASH, EMPTY_HASH, [EMPTY_HASH], false],
      [0n, 1n, EMPTY_HASH, EMPTY_HASH, [EMPTY_HASH], false],
      [1n, 1n, EMPTY_HASH, EMPTY_HASH, [EMPTY_HASH], false],
      // From size 0 the old root must be the empty tree's (verify_test.go does not look at it).
      [0n, 0n, EMPTY_HASH, EMPTY_HASH, [], true],
      [0n, 1n, EMPTY_HASH, r2, [], true],
      [0n, 1n, r1, r2, [], false],
    ];
    const got = cases.map(
      ([oldSize, newSize, oldRoot, newRoot, proof]) =>
        verifyConsistency({ oldSize, newSize, oldRoot, newRoot, proof }) === undefined,
    );
    expect(got).toEqual(cases.map((c) => c[5]));
  });
});

describe('proof generation is caller-checked', () => {
  it('is a TypeError for an index not below the size, or an old size above the new one', () => {
    expect(() => proveInclusion(3n, 3n, published)).toThrow(TypeError);
    expect(() => proveConsistency(4n, 3n, published)).toThrow(TypeError);
    expect(() => treeRoot(-1n, published)).toThrow(TypeError);
    expect(() => proveInclusion(0n, 2n, () => new Uint8Array(3))).toThrow(TypeError);
  });
});
