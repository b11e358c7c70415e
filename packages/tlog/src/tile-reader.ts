// tlog-tiles: the hashes of a tree read from its tiles, each tile fetched once and checked
// against the tree's root before any hash of it is used.
import { bytesEqual, type CryptoBackend, getBackend } from '@wai-steering/wire';
import { readEntryBundle } from './entries.js';
import { assertHash, checkU64, foldRight, HASH_SIZE, subtreeInTile } from './internal/hash.js';
import { consistencyRanges, inclusionRanges, type Subtree, subtreesOf } from './internal/ranges.js';
import { emptyRoot, leafHash, proveConsistency, proveInclusion, treeRoot } from './merkle.js';
import { isTlogRefusal, TlogRefusal } from './refusal.js';
import { TILE_WIDTH, type Tile, tileOf, tilePath, tilesOf } from './tiles.js';

/**
 * Fetches a tile's or an entry bundle's bytes (`path` is `tilePath(tile)`, relative to the log's
 * prefix). `undefined` when the log does not have it (an HTTP 404); a throw for anything else.
 */
export type TileFetcher = (tile: Tile, path: string) => Promise<Uint8Array | undefined>;

/** The tree a {@link TileHashReader} reads: from a checkpoint the caller has verified. */
export interface TreeHead {
  readonly size: bigint;
  readonly root: Uint8Array;
}

export interface TileHashReaderOptions {
  readonly backend?: CryptoBackend;
}

/**
 * The hashes of the tree of a verified checkpoint, read from its tiles (tlog-tiles): the hash of
 * any complete subtree, the root at any size up to the tree's, inclusion and consistency proofs
 * (RFC 6962 §2.1.1, §2.1.2), and the entries of a bundle.
 *
 * Every tile is checked before it is used, as Go's `tlog.TileHashReader` does: the partial tiles
 * of the tree's size together must give its root, and a full tile must hash to its entry in the
 * tile above it. So every hash and entry this reader gives is proven to be in the tree.
 *
 * Each tile is fetched at most once per reader (the tiles a call needs are fetched in parallel);
 * a failed fetch is tried again at the next call. A partial tile the log no longer has (tlog-tiles
 * allows deleting it once the full tile exists) is read from the full tile's first hashes. Every
 * method rejects with a {@link TlogRefusal} only: `bad_tile` when a tile does not match the root,
 * `tile_missing` when it cannot be fetched (the fetcher's error as `cause`). Asking for what the
 * tree does not have (an index at or past its size) is a `TypeError`.
 */
export class TileHashReader {
  readonly size: bigint;
  readonly root: Uint8Array;
  private readonly fetchTile: TileFetcher;
  private readonly backend: CryptoBackend;
  private readonly tiles = new Map<string, Promise<Uint8Array>>();
  private readonly bundles = new Map<string, Promise<Uint8Array[]>>();
  private edge: Promise<Map<number, Uint8Array>> | undefined;

  constructor(tree: TreeHead, fetchTile: TileFetcher, options: TileHashReaderOptions = {}) {
    if (tree === null || typeof tree !== 'object')
      throw new TypeError('TileHashReader: expected { size, root }');
    checkU64(tree.size, 'TileHashReader: size');
    assertHash(tree.root, 'TileHashReader: root');
    if (typeof fetchTile !== 'function')
      throw new TypeError('TileHashReader: expected a fetch function');
    this.size = tree.size;
    this.root = tree.root.slice();
    this.fetchTile = fetchTile;
    this.backend = options.backend ?? getBackend();
  }

  /** The MTH of the complete subtree of leaves `[index · 2^level, (index + 1) · 2^level)`. */
  async subtreeHash(level: number, index: bigint): Promise<Uint8Array> {
    this.checkSubtree({ level, index }, 'subtreeHash');
    return this.hashOf({ level, index });
  }

  /** The root of the tree's first `size` leaves (the whole tree's when omitted). */
  async rootAt(size: bigint = this.size): Promise<Uint8Array> {
    this.checkSize(size, 'rootAt');
    if (size === this.size) {
      await this.rightEdge();
      return this.root.slice();
    }
    if (size === 0n) return emptyRoot(this.backend);
    const source = await this.sourceFor(subtreesOf(0n, size));
    return treeRoot(size, source, this.backend);
  }

  /** RFC 6962 §2.1.1: the inclusion proof of leaf `index` in the tree of `size` leaves. */
  async inclusionProof(index: bigint, size: bigint = this.size): Promise<Uint8Array[]> {
    this.checkSize(size, 'inclusionProof');
    checkU64(index, 'inclusionProof: index');
    if (index >= size)
      throw new TypeError(`inclusionProof: index ${index} is not below size ${size}`);
    const needed = inclusionRanges(index, size).flatMap(([a, b]) => subtreesOf(a, b));
    return proveInclusion(index, size, await this.sourceFor(needed), this.backend);
  }

  /** RFC 6962 §2.1.2: the consistency proof from `oldSize` to `newSize` leaves. */
  async consistencyProof(oldSize: bigint, newSize: bigint = this.size): Promise<Uint8Array[]> {
    this.checkSize(newSize, 'consistencyProof');
    checkU64(oldSize, 'consistencyProof: oldSize');
    if (oldSize > newSize) throw new TypeError('consistencyProof: oldSize is above newSize');
    if (oldSize === 0n || oldSize === newSize) return [];
    const needed = consistencyRanges(oldSize, newSize).flatMap(([a, b]) => subtreesOf(a, b));
    return proveConsistency(oldSize, newSize, await this.sourceFor(needed), this.backend);
  }

  /**
   * The entries of bundle `index` (entries `index · 256` onwards: 256, or fewer in the partial
   * bundle), each checked against its leaf hash in the level-0 tile.
   */
  async entries(index: bigint): Promise<Uint8Array[]> {
    checkU64(index, 'entries: index');
    const tile = tileOf(this.size, 'entries', index);
    if (tile === undefined)
      throw new TypeError(`entries: the tree of size ${this.size} has no bundle ${index}`);
    const path = tilePath(tile);
    let p = this.bundles.get(path);
    if (p === undefined) {
      p = this.readBundle(tile, path);
      this.bundles.set(path, p);
      p.catch(() => this.bundles.delete(path));
    }
    return (await p).slice();
  }

  private async readBundle(tile: Tile, path: string): Promise<Uint8Array[]> {
    const [bytes, hashes] = await Promise.all([this.fetch(tile), this.tile(0, tile.index)]);
    const read = readEntryBundle(bytes.data, bytes.full ? TILE_WIDTH : tile.width);
    if (!read.ok)
      throw new TlogRefusal('bad_tile', { what: 'entry bundle', path }, read.refusal.message);
    const entries = read.value.slice(0, tile.width);
    for (let i = 0; i < entries.length; i++) {
      const h = leafHash(entries[i]!, this.backend);
      if (!bytesEqual(h, hashes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE))) {
        throw new TlogRefusal(
          'bad_tile',
          { what: 'entry bundle', path },
          `entry ${i} does not hash to its leaf hash`,
        );
      }
    }
    return entries;
  }

  private checkSize(size: bigint, what: string): void {
    checkU64(size, `${what}: size`);
    if (size > this.size)
      throw new TypeError(`${what}: size ${size} is above the tree's ${this.size}`);
  }

  private checkSubtree(t: Subtree, what: string): void {
    if (!Number.isInteger(t.level) || t.level < 0 || t.level > 63) {
      throw new TypeError(`${what}: level must be 0 to 63`);
    }
    checkU64(t.index, `${what}: index`);
    if ((t.index + 1n) << BigInt(t.level) > this.size) {
      throw new TypeError(
        `${what}: the subtree (${t.level}, ${t.index}) is not complete in the tree`,
      );
    }
  }

  /** A synchronous source over the subtrees `needed`, their tiles fetched in parallel first. */
  private async sourceFor(needed: readonly Subtree[]) {
    const hashes = new Map<string, Uint8Array>();
    await Promise.all(
      needed.map(async (t) => {
        hashes.set(`${t.level}/${t.index}`, await this.hashOf(t));
      }),
    );
    return (level: number, index: bigint): Uint8Array => hashes.get(`${level}/${index}`)!;
  }

  /** A complete subtree's hash: its 2^h hashes in the tile at level ⌊level / 8⌋. */
  private async hashOf(t: Subtree): Promise<Uint8Array> {
    const tileLevel = Math.floor(t.level / 8);
    const h = t.level % 8;
    const first = t.index << BigInt(h); // its first hash at the tile's level
    const bytes = await this.tile(tileLevel, first >> 8n);
    return subtreeInTile(bytes, Number(first & 255n), 1 << h, this.backend);
  }

  /** The checked hashes (their bytes) of the tile at `level` and `index` of the tree. */
  private tile(level: number, index: bigint): Promise<Uint8Array> {
    const tile = tileOf(this.size, level, index);
    if (tile === undefined)
      throw new TypeError(`the tree of size ${this.size} has no tile ${level}/${index}`);
    if (tile.width < TILE_WIDTH) return this.rightEdge().then((edge) => edge.get(level)!);
    const key = tilePath(tile);
    let p = this.tiles.get(key);
    if (p === undefined) {
      p = this.fullTile(tile);
      this.tiles.set(key, p);
      p.catch(() => this.tiles.delete(key));
    }
    return p;
  }

  /** A full tile, checked against its hash in the tile above (itself checked the same way). */
  private async fullTile(tile: Tile): Promise<Uint8Array> {
    const level = tile.level as number;
    const [{ data }, parent] = await Promise.all([
      this.fetch(tile),
      this.tile(level + 1, tile.index >> 8n),
    ]);
    const slot = Number(tile.index & 255n);
    const expected = parent.subarray(slot * HASH_SIZE, (slot + 1) * HASH_SIZE);
    if (!bytesEqual(subtreeInTile(data, 0, TILE_WIDTH, this.backend), expected)) {
      throw new TlogRefusal(
        'bad_tile',
        { what: 'tile', path: tilePath(tile) },
        'not the hash in the tile above',
      );
    }
    return data;
  }

  /**
   * The partial tiles of the tree's size, by level, checked together: the complete subtrees of
   * `[0, size)` are exactly their hashes, and must fold into the root.
   */
  private rightEdge(): Promise<Map<number, Uint8Array>> {
    if (this.edge === undefined) {
      this.edge = this.readRightEdge();
      this.edge.catch(() => {
        this.edge = undefined;
      });
    }
    return this.edge;
  }

  private async readRightEdge(): Promise<Map<number, Uint8Array>> {
    const partials = tilesOf(this.size).filter((l) => l.partial > 0);
    const edge = new Map<number, Uint8Array>();
    await Promise.all(
      partials.map(async (l) => {
        const { data } = await this.fetch({ level: l.level, index: l.full, width: l.partial });
        edge.set(l.level, data);
      }),
    );
    const root =
      this.size === 0n
        ? emptyRoot(this.backend)
        : foldRight(
            subtreesOf(0n, this.size).map((t) => {
              const h = t.level % 8;
              const first = Number((t.index << BigInt(h)) & 255n);
              return subtreeInTile(edge.get(Math.floor(t.level / 8))!, first, 1 << h, this.backend);
            }),
            this.backend,
          );
    if (!bytesEqual(root, this.root)) {
      const paths = partials.map((l) =>
        tilePath({ level: l.level, index: l.full, width: l.partial }),
      );
      throw new TlogRefusal(
        'bad_tile',
        { what: 'tile', path: paths.join(' ') },
        'the partial tiles do not give the root',
      );
    }
    return edge;
  }

  /**
   * A tile's bytes from the fetcher, of the right length. A partial tile the log does not have
   * is read from the full tile's first hashes (tlog-tiles: clients "MAY fetch the full tile … as
   * a fallback"); for an entry bundle, `full` says the bytes are the full bundle's.
   */
  private async fetch(tile: Tile): Promise<{ data: Uint8Array; full: boolean }> {
    let bytes = await this.fetchOnce(tile);
    let full = tile.width === TILE_WIDTH;
    if (bytes === undefined && tile.width < TILE_WIDTH) {
      bytes = await this.fetchOnce({ ...tile, width: TILE_WIDTH });
      full = true;
    }
    const path = tilePath(tile);
    if (bytes === undefined)
      throw new TlogRefusal('tile_missing', { what: 'tile', path }, 'not found');
    if (tile.level === 'entries') return { data: bytes, full };
    const width = full ? TILE_WIDTH : tile.width;
    if (bytes.length !== width * HASH_SIZE) {
      throw new TlogRefusal(
        'bad_tile',
        { what: 'tile', path },
        `${bytes.length} bytes, not ${width * HASH_SIZE}`,
      );
    }
    return { data: bytes.slice(0, tile.width * HASH_SIZE), full };
  }

  private async fetchOnce(tile: Tile): Promise<Uint8Array | undefined> {
    const path = tilePath(tile);
    let bytes: Uint8Array | undefined;
    try {
      bytes = await this.fetchTile(tile, path);
    } catch (e) {
      if (isTlogRefusal(e)) throw e;
      throw new TlogRefusal('tile_missing', { what: 'tile', path }, String(e), { cause: e });
    }
    if (bytes !== undefined && !(bytes instanceof Uint8Array)) {
      throw new TypeError(`TileHashReader: the fetcher gave ${typeof bytes} for ${path}`);
    }
    return bytes;
  }
}
