import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  emptyRoot,
  isTlogRefusal,
  leafHash,
  rootOf,
  type Tile,
  TileHashReader,
  verifyConsistency,
  verifyInclusion,
} from '../src/index.js';
import { buildLog, entries, prefixFetcher, type Store } from './helpers/log.js';
import { hex } from './helpers/naive.js';

const SIZE = 70_000;
const big = buildLog(SIZE);
const leafHashes = big.result.leafHashes;

function reader(size: number, store: Store = big.store, root?: Uint8Array) {
  const fetch = prefixFetcher(store);
  const r = new TileHashReader(
    { size: BigInt(size), root: root ?? rootOf(leafHashes.slice(0, size), nodeBackend) },
    fetch,
    { backend: nodeBackend },
  );
  return { r, fetch };
}

async function refusalOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return isTlogRefusal(e) ? e.reason : `threw ${String(e)}`;
  }
}

describe('TileHashReader', () => {
  it('gives the root at every size it is asked, from the tiles of the tree of 70,000', async () => {
    const { r } = reader(SIZE);
    for (const size of [0, 1, 255, 256, 257, 65_535, 65_536, 65_537, 69_999, SIZE]) {
      expect({ size, root: hex(await r.rootAt(BigInt(size))) }).toEqual({
        size,
        root: hex(rootOf(leafHashes.slice(0, size), nodeBackend)),
      });
    }
  });

  it('gives complete subtree hashes: leaf hashes at level 0, roots of 2^level leaves above', async () => {
    const { r } = reader(SIZE);
    expect(hex(await r.subtreeHash(0, 69_999n))).toEqual(hex(leafHashes[69_999]!));
    expect(hex(await r.subtreeHash(16, 0n))).toEqual(
      hex(rootOf(leafHashes.slice(0, 65_536), nodeBackend)),
    );
    expect(hex(await r.subtreeHash(3, 8_000n))).toEqual(
      hex(rootOf(leafHashes.slice(64_000, 64_008), nodeBackend)),
    );
    expect(hex(await r.subtreeHash(9, 130n))).toEqual(
      hex(rootOf(leafHashes.slice(66_560, 67_072), nodeBackend)),
    );
    await expect(r.subtreeHash(0, 70_000n)).rejects.toThrow(TypeError);
    await expect(r.subtreeHash(17, 0n)).rejects.toThrow(TypeError);
  });

  it('gives inclusion and consistency proofs that verify', async () => {
    const { r } = reader(SIZE);
    const root = r.root;
    for (const index of [0n, 1n, 255n, 256n, 65_535n, 65_536n, 69_999n]) {
      const proof = await r.inclusionProof(index);
      expect(
        verifyInclusion({ leafHash: leafHashes[Number(index)]!, index, size: r.size, proof, root }),
      ).toBeUndefined();
    }
    for (const old of [1n, 255n, 256n, 257n, 65_535n, 65_536n, 65_537n, 69_999n]) {
      const proof = await r.consistencyProof(old);
      const oldRoot = rootOf(leafHashes.slice(0, Number(old)), nodeBackend);
      expect(
        verifyConsistency({ oldSize: old, newSize: r.size, oldRoot, newRoot: root, proof }),
      ).toBeUndefined();
    }
    expect(await r.consistencyProof(0n)).toEqual([]);
    expect(await r.consistencyProof(r.size)).toEqual([]);
  });

  it('gives the entries of a bundle, checked against the level-0 tile', async () => {
    const { r } = reader(SIZE);
    const want = entries(0, SIZE);
    expect((await r.entries(0n)).map(hex)).toEqual(want.slice(0, 256).map(hex));
    expect((await r.entries(273n)).map(hex)).toEqual(want.slice(273 * 256).map(hex));
    await expect(r.entries(274n)).rejects.toThrow(TypeError);
  });

  it('fetches each tile at most once, the tiles of a call in parallel', async () => {
    const { r, fetch } = reader(SIZE);
    await Promise.all([
      r.inclusionProof(5n),
      r.inclusionProof(6n),
      r.consistencyProof(300n),
      r.rootAt(12_345n),
    ]);
    await r.inclusionProof(7n);
    await r.entries(0n);
    await r.entries(0n);
    const counts = [...fetch.calls.values()];
    expect(counts.every((c) => c === 1)).toEqual(true);
    expect(fetch.calls.size).toBeGreaterThan(3);
  });

  it('reads a partial tile the log no longer has from its full tile', async () => {
    // A tree of 600 read from a store of 70,000: the partial tiles of 600 exist in none of them.
    const { r, fetch } = reader(600);
    const proof = await r.inclusionProof(599n);
    expect(
      verifyInclusion({ leafHash: leafHashes[599]!, index: 599n, size: 600n, proof, root: r.root }),
    ).toBeUndefined();
    expect([...fetch.calls.keys()]).toContain('tile/0/002.p/88');
    expect((await r.entries(2n)).length).toEqual(88);
  });

  it('refuses tiles that do not give the root (bad_tile): a changed hash in a full or a partial tile, a wrong length', async () => {
    const changed = (path: string, at: number): Store => {
      const s = new Map(big.store);
      const bytes = s.get(path)!.slice();
      bytes[at]! ^= 1;
      s.set(path, bytes);
      return s;
    };
    expect(
      await refusalOf(reader(SIZE, changed('tile/0/010', 77)).r.inclusionProof(2_600n)),
    ).toEqual('bad_tile');
    expect(await refusalOf(reader(SIZE, changed('tile/1/000', 3)).r.inclusionProof(0n))).toEqual(
      'bad_tile',
    );
    expect(await refusalOf(reader(SIZE, changed('tile/0/273.p/112', 0)).r.rootAt())).toEqual(
      'bad_tile',
    );
    expect(
      await refusalOf(reader(SIZE, changed('tile/2/000.p/1', 31)).r.subtreeHash(0, 0n)),
    ).toEqual('bad_tile');
    expect(await refusalOf(reader(SIZE, changed('tile/entries/000', 10)).r.entries(0n))).toEqual(
      'bad_tile',
    );
    const short = new Map(big.store);
    short.set('tile/0/000', big.store.get('tile/0/000')!.slice(0, 8160));
    expect(await refusalOf(reader(SIZE, short).r.inclusionProof(0n))).toEqual('bad_tile');
    // A root that is not the tree's refuses every tile.
    expect(
      await refusalOf(reader(SIZE, big.store, new Uint8Array(32)).r.inclusionProof(0n)),
    ).toEqual('bad_tile');
  });

  it('refuses missing tiles and fetch errors (tile_missing), and tries again at the next call', async () => {
    const missing = new Map(big.store);
    missing.delete('tile/0/001');
    expect(await refusalOf(reader(SIZE, missing).r.inclusionProof(300n))).toEqual('tile_missing');
    let fail = true;
    const flaky = async (tile: Tile, path: string) => {
      if (fail && path === 'tile/0/000') throw new Error('connection reset');
      return prefixFetcher(big.store)(tile, path);
    };
    const r = new TileHashReader({ size: BigInt(SIZE), root: big.result.root }, flaky, {
      backend: nodeBackend,
    });
    let caught: unknown;
    await r.inclusionProof(1n).catch((e) => {
      caught = e;
    });
    expect(isTlogRefusal(caught) && caught.reason).toEqual('tile_missing');
    expect(isTlogRefusal(caught) && (caught.cause as Error).message).toEqual('connection reset');
    fail = false;
    const proof = await r.inclusionProof(1n);
    expect(
      verifyInclusion({ leafHash: leafHashes[1]!, index: 1n, size: r.size, proof, root: r.root }),
    ).toBeUndefined();
  });

  it('reads the empty tree without a tile, and refuses a root of size 0 that is not the empty tree’s', async () => {
    const none = async () => undefined;
    const empty = new TileHashReader({ size: 0n, root: emptyRoot() }, none);
    expect(hex(await empty.rootAt())).toEqual(hex(emptyRoot()));
    const wrong = new TileHashReader({ size: 0n, root: leafHash(new Uint8Array(0)) }, none);
    expect(await refusalOf(wrong.rootAt())).toEqual('bad_tile');
  });

  it('is a TypeError for what the tree does not have', async () => {
    const { r } = reader(SIZE);
    await expect(r.inclusionProof(70_000n)).rejects.toThrow(TypeError);
    await expect(r.rootAt(70_001n)).rejects.toThrow(TypeError);
    await expect(r.consistencyProof(5n, 4n)).rejects.toThrow(TypeError);
    expect(
      () => new TileHashReader({ size: 1n, root: new Uint8Array(3) }, async () => undefined),
    ).toThrow(TypeError);
  });
});
