// The tile hashing: level by level, the new hashes of a level (its leaves, then the full tiles'
// MTHs of the level below) appended after its partial tile, each height's nodes hashed in one
// call; the full tiles they complete, and the partial tiles of the new size.
import type { LogState, TileData } from '../../log-state.js';
import { TILE_WIDTH, type Tile, tilePath } from '../../tiles.js';
import type { TreeHashing } from '../../tree-hashing.js';
import { HASH_SIZE } from '../hash.js';
import { type Edge, own, type Store, type Subtree, stackHash, TILE_BYTES } from './edge.js';
import { hashesOf, scratchOf } from './hashing.js';

/** A level of the edge as a batch works on it: the edge's, and whether its store is the batch's. */
export interface LevelInProgress {
  store: Store;
  count: number;
  stack: Subtree[];
  owned: boolean;
}

/** The edge's levels, to work on (their stores copied only when another writer went on). */
export function levelsOf(edge: Edge): LevelInProgress[] {
  return edge.levels.map((l) => ({
    store: l.store,
    count: l.count,
    stack: l.stack.slice(),
    owned: false,
  }));
}

/** A level the log had not reached: an empty partial tile. */
export function newLevel(): LevelInProgress {
  return {
    store: { bytes: new Uint8Array(TILE_BYTES), used: 0 },
    count: 0,
    stack: [],
    owned: true,
  };
}

/**
 * Appends `hashes` (`added` of them) to level `level` of the edge, `l`, whose hashes before the
 * batch were `before` (⌊size / 256^level⌋): the full tiles completed go to `tiles`, and `l`
 * becomes the level after the batch. Gives the MTHs of the full tiles completed, the next
 * level's new hashes.
 */
export function integrateLevel(
  l: LevelInProgress,
  level: number,
  hashes: Uint8Array,
  added: number,
  before: bigint,
  hashing: TreeHashing,
  tiles: TileData[],
): Uint8Array {
  // Positions from the partial tile's first hash: the old hashes are [0, old), the new ones
  // [old, total). `nodes[h]` holds the hashes of the aligned blocks [j·2^h, (j+1)·2^h) that
  // end in (old, total], j from ⌊old / 2^h⌋: the blocks the batch completed. A block never
  // crosses a tile (2^h ≤ 256), and a full tile's MTH is its block of height 8.
  const old = l.count;
  const total = old + added;
  const nodes: Uint8Array[] = [hashes];
  for (let h = 1; h <= 8; h++) {
    const first = old >> h;
    const count = (total >> h) - first;
    if (count <= 0) break; // and so at every height above
    const below = nodes[h - 1]!;
    const firstBelow = old >> (h - 1);
    const pairs = scratchOf(1, count * 2 * HASH_SIZE);
    let j = first;
    if (2 * first < firstBelow) {
      // The left child is old: the partial tile's complete subtree of width 2^(h−1).
      pairs.set(stackHash(l.stack, 1 << (h - 1)), 0);
      pairs.set(below.subarray(0, HASH_SIZE), HASH_SIZE);
      j++;
    }
    // The children 2j and 2j + 1 of the other nodes lie one after the other below.
    const from = (2 * j - firstBelow) * HASH_SIZE;
    pairs.set(
      below.subarray(from, from + (first + count - j) * 2 * HASH_SIZE),
      (j - first) * 2 * HASH_SIZE,
    );
    nodes.push(hashesOf(hashing.nodeHashes(pairs, count), count));
  }

  // The tiles: the old hashes then the new ones, a full tile every 256.
  const full = total >> 8;
  const rest = total & 255;
  const firstTile = before >> 8n;
  for (let k = 0; k < full; k++) {
    let data: Uint8Array;
    if (k === 0) {
      data = new Uint8Array(TILE_BYTES);
      data.set(l.store.bytes.subarray(0, old * HASH_SIZE));
      data.set(hashes.subarray(0, (TILE_WIDTH - old) * HASH_SIZE), old * HASH_SIZE);
    } else {
      const from = (k * TILE_WIDTH - old) * HASH_SIZE;
      data = hashes.slice(from, from + TILE_BYTES);
    }
    const tile: Tile = { level, index: firstTile + BigInt(k), width: TILE_WIDTH };
    tiles.push({ tile, path: tilePath(tile), data });
  }
  if (full === 0) {
    if (!l.owned) {
      l.store = own(l.store, old * HASH_SIZE);
      l.owned = true;
    }
    l.store.bytes.set(hashes.subarray(0, added * HASH_SIZE), old * HASH_SIZE);
  } else {
    const bytes = new Uint8Array(TILE_BYTES);
    bytes.set(hashes.subarray((total - rest - old) * HASH_SIZE, added * HASH_SIZE));
    l.store = { bytes, used: 0 };
    l.owned = true;
  }
  l.count = rest;
  l.store.used = rest * HASH_SIZE;

  // The new partial tile's complete subtrees: its hashes' binary counter, widest first.
  const stack: Subtree[] = [];
  let at = total - rest;
  for (let h = 7; h >= 0; h--) {
    const width = 1 << h;
    if ((rest & width) === 0) continue;
    if (at + width <= old) {
      stack.push({ width, hash: stackHash(l.stack, width) });
    } else {
      const i = ((at >> h) - (old >> h)) * HASH_SIZE;
      stack.push({ width, hash: nodes[h]!.subarray(i, i + HASH_SIZE) });
    }
    at += width;
  }
  l.stack = stack;

  return full > 0 ? nodes[8]! : new Uint8Array(0);
}

/**
 * The partial tiles of the log of `size` entries after the batch, by level: those of the levels
 * the batch reached (`touched`) from `levels`, each not empty also appended to `tiles`; the
 * others as `state` had them.
 */
export function partialTilesOf(
  levels: readonly LevelInProgress[],
  touched: readonly boolean[],
  state: LogState,
  size: bigint,
  tiles: TileData[],
): Uint8Array[] {
  const partialTiles: Uint8Array[] = [];
  for (let level = 0; level < levels.length; level++) {
    const l = levels[level]!;
    if (!touched[level]) {
      partialTiles.push(state.partialTiles[level] ?? new Uint8Array(0));
      continue;
    }
    const data = l.store.bytes.slice(0, l.count * HASH_SIZE);
    partialTiles.push(data);
    if (l.count === 0) continue;
    const tile: Tile = { level, index: size >> BigInt(8 * (level + 1)), width: l.count };
    tiles.push({ tile, path: tilePath(tile), data });
  }
  while (partialTiles.length > 0 && partialTiles[partialTiles.length - 1]!.length === 0)
    partialTiles.pop();
  return partialTiles;
}
