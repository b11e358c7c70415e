// The RFC 6962 reference tree of the Certificate Transparency / transparency-dev implementations,
// copied from github.com/transparency-dev/merkle (Apache-2.0):
//   testonly/constants.go, commit 582a6ad190b6848f1d26f8bf08ddef29955d9db1: LeafInputs,
//     NodeHashes (every complete subtree), RootHashes (every size 0 to 8);
//   proof/verify_test.go, commit 02194e9afb6c1d95b5381350007963aa70fff472: inclusionProofs and
//     consistencyProofs (with their hashes);
//   proof/proof_test.go, commit 02a3e2029520f515596d5238c54fb0ac9e19bff4: TestInclusion and
//     TestConsistency (the node IDs of each proof, and the ranges to rehash), the cases of trees
//     of at most 8 leaves.

/** LeafInputs(), hex. */
export const LEAF_INPUTS = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
];

/** NodeHashes(): [level][index], every complete subtree of the 8-leaf tree. */
export const NODE_HASHES = [
  [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7',
    '07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7',
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    '4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658',
    'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
    '46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1',
  ],
  [
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
  ],
  [
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
  ],
  ['5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328'],
];

/** RootHashes(): by size, 0 (the empty tree) to 8. */
export const ROOT_HASHES = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

/**
 * inclusionProofs of verify_test.go: `leaf` is 1-based there (the proof is of leaf `leaf − 1`);
 * the first entry, {0, 0, nil}, is "an invalid path" and is left out.
 */
export const INCLUSION_PROOFS: readonly { leaf: number; size: number; proof: string[] }[] = [
  { leaf: 1, size: 1, proof: [] },
  {
    leaf: 1,
    size: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    leaf: 6,
    size: 8,
    proof: [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  {
    leaf: 3,
    size: 3,
    proof: ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125'],
  },
  {
    leaf: 2,
    size: 5,
    proof: [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  },
];

/** consistencyProofs of verify_test.go. */
export const CONSISTENCY_PROOFS: readonly { size1: number; size2: number; proof: string[] }[] = [
  { size1: 1, size2: 1, proof: [] },
  {
    size1: 1,
    size2: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    size1: 6,
    size2: 8,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  {
    size1: 2,
    size2: 5,
    proof: [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  },
  {
    size1: 6,
    size2: 7,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
];

/** A node ID of proof_test.go, `id(level, index)`. */
export type NodeId = readonly [level: number, index: number];

/**
 * A proof of proof_test.go as node IDs: the hashes of `ids` in order, except that the nodes
 * `ids[begin..end)` are rehashed into one (Nodes.Rehash: each later node is the left child of
 * the hash so far), where a proof needs a subtree that is not complete.
 */
export interface NodeProof {
  readonly ids: readonly NodeId[];
  readonly rehash?: readonly [begin: number, end: number];
}

/** TestInclusion, the trees of at most 8 leaves (sizes 1 to 7). */
export const INCLUSION_NODES: readonly { size: number; index: number; want: NodeProof }[] = [
  { size: 1, index: 0, want: { ids: [] } },
  { size: 2, index: 0, want: { ids: [[0, 1]] } },
  { size: 2, index: 1, want: { ids: [[0, 0]] } },
  { size: 3, index: 1, want: { ids: [[0, 0], [0, 2]] } },
  { size: 7, index: 0, want: { ids: [[0, 1], [1, 1], [0, 6], [1, 2]], rehash: [2, 4] } },
  { size: 7, index: 1, want: { ids: [[0, 0], [1, 1], [0, 6], [1, 2]], rehash: [2, 4] } },
  { size: 7, index: 2, want: { ids: [[0, 3], [1, 0], [0, 6], [1, 2]], rehash: [2, 4] } },
  { size: 7, index: 3, want: { ids: [[0, 2], [1, 0], [0, 6], [1, 2]], rehash: [2, 4] } },
  { size: 7, index: 4, want: { ids: [[0, 5], [0, 6], [2, 0]] } },
  { size: 7, index: 5, want: { ids: [[0, 4], [0, 6], [2, 0]] } },
  { size: 7, index: 6, want: { ids: [[1, 2], [2, 0]] } },
  { size: 4, index: 2, want: { ids: [[0, 3], [1, 0]] } },
  { size: 5, index: 3, want: { ids: [[0, 2], [1, 0], [0, 4]] } },
  { size: 6, index: 3, want: { ids: [[0, 2], [1, 0], [1, 2]] } },
  { size: 6, index: 4, want: { ids: [[0, 5], [2, 0]] } },
];

/** TestConsistency, the trees of at most 8 leaves. */
export const CONSISTENCY_NODES: readonly { size1: number; size2: number; want: NodeProof }[] = [
  { size1: 1, size2: 2, want: { ids: [[0, 1]] } },
  { size1: 1, size2: 4, want: { ids: [[0, 1], [1, 1]] } },
  { size1: 1, size2: 6, want: { ids: [[0, 1], [1, 1], [1, 2]] } },
  { size1: 2, size2: 3, want: { ids: [[0, 2]] } },
  { size1: 2, size2: 8, want: { ids: [[1, 1], [2, 1]] } },
  { size1: 3, size2: 7, want: { ids: [[0, 2], [0, 3], [1, 0], [0, 6], [1, 2]], rehash: [3, 5] } },
  { size1: 4, size2: 7, want: { ids: [[0, 6], [1, 2]], rehash: [0, 2] } },
  { size1: 5, size2: 7, want: { ids: [[0, 4], [0, 5], [0, 6], [2, 0]] } },
  { size1: 6, size2: 7, want: { ids: [[1, 2], [0, 6], [2, 0]] } },
  { size1: 7, size2: 8, want: { ids: [[0, 6], [0, 7], [1, 2], [2, 0]] } },
  { size1: 1, size2: 1, want: { ids: [] } },
  { size1: 2, size2: 2, want: { ids: [] } },
  { size1: 3, size2: 3, want: { ids: [] } },
  { size1: 4, size2: 4, want: { ids: [] } },
  { size1: 5, size2: 5, want: { ids: [] } },
  { size1: 7, size2: 7, want: { ids: [] } },
  { size1: 8, size2: 8, want: { ids: [] } },
  { size1: 2, size2: 4, want: { ids: [[1, 1]] } },
  { size1: 3, size2: 5, want: { ids: [[0, 2], [0, 3], [1, 0], [0, 4]] } },
  { size1: 3, size2: 6, want: { ids: [[0, 2], [0, 3], [1, 0], [1, 2]] } },
  { size1: 4, size2: 6, want: { ids: [[1, 2]] } },
  { size1: 1, size2: 7, want: { ids: [[0, 1], [1, 1], [0, 6], [1, 2]], rehash: [2, 4] } },
];
