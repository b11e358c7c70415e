// The log's writer side: a batch of new entries integrated into the tree, in memory. The result
// is every byte the log must store for the new size (tlog-tiles: tiles and entry bundles), so
// that a server can keep it in one transaction with the checkpoint it signs.
import { type CryptoBackend, getBackend } from '@wai-steering/wire';
import { encodeEntryBundle, readEntryBundle } from './entries.js';
import { checkU64, foldRight, HASH_SIZE, subtreeInTile } from './internal/hash.js';
import { emptyRoot } from './merkle.js';
import { TILE_WIDTH, type Tile, tilePath } from './tiles.js';

/**
 * What the writer needs of a log: its size, the rightmost partial tile at each level and the
 * rightmost partial entry bundle. Everything left of them is in full tiles, which never change.
 */
export interface LogState {
  readonly size: bigint;
  /**
   * The bytes (32 × width) of the partial tile at each level, level 0 first: the tile of width
   * ⌊size / 256^level⌋ mod 256. A level whose width is 0 holds an empty array, or is left out at
   * the end.
   */
  readonly partialTiles: readonly Uint8Array[];
  /** The partial entry bundle's bytes (size mod 256 entries); empty when there is none. */
  readonly partialBundle: Uint8Array;
}

/** The state of a log with no entry. */
export function emptyLogState(): LogState {
  return { size: 0n, partialTiles: [], partialBundle: new Uint8Array(0) };
}

/** A tile or an entry bundle to store, at its path. */
export interface TileData {
  readonly tile: Tile;
  readonly path: string;
  readonly data: Uint8Array;
}

/** What {@link integrate} gives: the new state, the new root, and what to store. */
export interface Integration {
  readonly state: LogState;
  readonly size: bigint;
  /** RFC 6962 MTH of the tree of the new size. */
  readonly root: Uint8Array;
  /** The leaf hash of each new entry, in order. */
  readonly leafHashes: readonly Uint8Array[];
  /**
   * The tiles to store: each full tile the batch completed, and each partial tile of the new
   * size that the batch changed (a level the batch did not reach keeps its partial tile).
   */
  readonly tiles: readonly TileData[];
  /** The entry bundles to store, the same way: new full bundles, and the new partial bundle. */
  readonly bundles: readonly TileData[];
}

/**
 * Integrates `entries` (each at most 65,535 bytes, the most an entry bundle can carry) after the
 * log of `state`: their RFC 6962 leaf hashes, the hashes above them, the tiles and bundles to
 * store, the new root and the new state. No I/O; the batch may be empty.
 *
 * Integrating in batches gives the same full tiles, the same final partial tiles and the same
 * root as integrating at once. A state that is not one of a log (a partial tile of the wrong
 * width) is a `TypeError`.
 */
export function integrate(
  state: LogState,
  entries: readonly Uint8Array[],
  backend?: CryptoBackend,
): Integration {
  const b = backend ?? getBackend();
  const { levels, bundle } = openState(state);
  if (!Array.isArray(entries)) throw new TypeError('integrate: expected an array of entries');
  for (const e of entries) {
    if (!(e instanceof Uint8Array)) throw new TypeError('integrate: an entry is not a Uint8Array');
    if (e.length > 0xffff)
      throw new TypeError(`integrate: an entry of ${e.length} bytes (at most 65535)`);
  }
  if (state.size + BigInt(entries.length) > (1n << 64n) - 1n) {
    throw new TypeError('integrate: the log would pass 2^64 − 1 entries');
  }

  let size = state.size;
  const tiles: TileData[] = [];
  const bundles: TileData[] = [];
  const touched: boolean[] = [];
  const leafHashes: Uint8Array[] = new Array(entries.length);
  let scratch = new Uint8Array(64);

  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    // RFC 6962 §2.1: the leaf hash, SHA-256(0x00 ‖ entry), in a buffer reused across entries.
    if (scratch.length < entry.length + 1) scratch = new Uint8Array(2 * (entry.length + 1));
    scratch[0] = 0x00;
    scratch.set(entry, 1);
    const leaf = b.sha256(scratch.subarray(0, entry.length + 1));
    leafHashes[i] = leaf;
    bundle.push(entry);
    if (bundle.length === TILE_WIDTH) {
      const tile: Tile = { level: 'entries', index: size >> 8n, width: TILE_WIDTH };
      bundles.push({ tile, path: tilePath(tile), data: encodeEntryBundle(bundle) });
      bundle.length = 0;
    }
    // The new hash climbs while it completes a tile: a full tile's MTH is a hash of the level above.
    let hash = leaf;
    for (let level = 0; ; level++) {
      if (levels[level] === undefined) levels[level] = [];
      const row = levels[level]!;
      row.push(hash);
      touched[level] = true;
      if (row.length < TILE_WIDTH) break;
      const tile: Tile = { level, index: size >> BigInt(8 * (level + 1)), width: TILE_WIDTH };
      const data = concat(row);
      tiles.push({ tile, path: tilePath(tile), data });
      hash = subtreeInTile(data, 0, TILE_WIDTH, b);
      row.length = 0;
    }
    size += 1n;
  }

  // The partial tiles of the new size at each level the batch reached.
  for (let level = 0; level < levels.length; level++) {
    const row = levels[level]!;
    if (!touched[level] || row.length === 0) continue;
    const tile: Tile = { level, index: size >> BigInt(8 * (level + 1)), width: row.length };
    tiles.push({ tile, path: tilePath(tile), data: concat(row) });
  }
  if (entries.length > 0 && bundle.length > 0) {
    const tile: Tile = { level: 'entries', index: size >> 8n, width: bundle.length };
    bundles.push({ tile, path: tilePath(tile), data: encodeEntryBundle(bundle) });
  }

  while (levels.length > 0 && levels[levels.length - 1]!.length === 0) levels.pop();
  const partialTiles = levels.map(concat);
  const root = rootOfEdge(partialTiles, b);
  return {
    state: {
      size,
      partialTiles,
      partialBundle: bundle.length === 0 ? new Uint8Array(0) : encodeEntryBundle(bundle),
    },
    size,
    root,
    leafHashes,
    tiles,
    bundles,
  };
}

/**
 * The root from the partial tiles alone: the complete subtrees of `[0, size)` are, from the top
 * level down and left to right in each tile, the power-of-two runs of its hashes that its width's
 * bits give.
 */
function rootOfEdge(partialTiles: readonly Uint8Array[], backend: CryptoBackend): Uint8Array {
  const subtrees: Uint8Array[] = [];
  for (let level = partialTiles.length - 1; level >= 0; level--) {
    const bytes = partialTiles[level]!;
    const width = bytes.length / HASH_SIZE;
    let first = 0;
    for (let h = 7; h >= 0; h--) {
      if ((width & (1 << h)) === 0) continue;
      subtrees.push(subtreeInTile(bytes, first, 1 << h, backend));
      first += 1 << h;
    }
  }
  return subtrees.length === 0 ? emptyRoot(backend) : foldRight(subtrees, backend);
}

/** The state's partial tiles as rows of hashes, and its partial bundle as entries; checked. */
function openState(state: LogState): { levels: Uint8Array[][]; bundle: Uint8Array[] } {
  if (state === null || typeof state !== 'object')
    throw new TypeError('integrate: expected a LogState');
  checkU64(state.size, 'integrate: state.size');
  if (!Array.isArray(state.partialTiles))
    throw new TypeError('integrate: state.partialTiles: expected an array');
  const levels: Uint8Array[][] = [];
  for (let level = 0; level < Math.max(state.partialTiles.length, 8); level++) {
    const width = Number((state.size >> BigInt(8 * level)) & 255n);
    const bytes = state.partialTiles[level] ?? new Uint8Array(0);
    if (!(bytes instanceof Uint8Array) || bytes.length !== width * HASH_SIZE) {
      throw new TypeError(
        `integrate: state.partialTiles[${level}] must be ${width * HASH_SIZE} bytes for size ${state.size}`,
      );
    }
    if (level < state.partialTiles.length || width > 0) {
      const row: Uint8Array[] = [];
      for (let i = 0; i < width; i++) row.push(bytes.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
      levels.push(row);
    }
  }
  while (levels.length > 0 && levels[levels.length - 1]!.length === 0) levels.pop();
  const width = Number(state.size & 255n);
  if (!(state.partialBundle instanceof Uint8Array)) {
    throw new TypeError('integrate: state.partialBundle: expected a Uint8Array');
  }
  let bundle: Uint8Array[] = [];
  if (width > 0 || state.partialBundle.length > 0) {
    const read = readEntryBundle(state.partialBundle, width === 0 ? undefined : width);
    if (!read.ok || width === 0) {
      throw new TypeError(
        `integrate: state.partialBundle must hold ${width} entries for size ${state.size}`,
      );
    }
    bundle = read.value;
  }
  return { levels, bundle };
}

function concat(row: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(row.length * HASH_SIZE);
  for (let i = 0; i < row.length; i++) out.set(row[i]!, i * HASH_SIZE);
  return out;
}
