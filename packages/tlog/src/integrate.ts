// The log's writer side: a batch of new entries integrated into the tree, in memory. The result
// is every byte the log must store for the new size (tlog-tiles: tiles and entry bundles), so
// that a server can keep it in one transaction with the checkpoint it signs.
import { type CryptoBackend, getBackend } from '@wai-steering/wire';
import { readEntryBundle } from './entries.js';
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
 * Bytes appended to by successive states: a buffer and how much of it the latest writer filled.
 * A state's edge records how much is its own; a writer that finds more written (someone
 * integrated onto the same state before) copies its part first. So a chain of states shares one
 * buffer, and integrating twice onto one state stays correct.
 */
interface Store {
  bytes: Uint8Array;
  used: number;
}

/** A complete subtree of a partial tile: its width in hashes (a power of two) and its hash. */
interface Subtree {
  readonly width: number;
  readonly hash: Uint8Array;
}

/**
 * The rightmost edge of a log, as the writer works on it: per level, the bytes of its partial
 * tile and the complete subtrees its hashes make (a binary counter: widths decreasing from the
 * left, each a power of two); and the partial bundle's bytes. Derived from a `LogState` (up to
 * 254 node hashes a level, once) and kept on the states `integrate` returns, so that a batch of
 * one entry costs one leaf hash, about one node hash, the root's fold and two copies of bytes.
 */
interface Edge {
  readonly levels: { store: Store; count: number; stack: Subtree[] }[];
  /** The partial bundle: its store, its entries and how many of the store's bytes are its own. */
  readonly bundle: { store: Store; count: number; used: number };
}

const EDGE = Symbol('edge');

/** A store of `capacity` bytes holding `used` bytes of `from` (a copy). */
function storeOf(from: Uint8Array, used: number, capacity: number): Store {
  const bytes = new Uint8Array(Math.max(capacity, used));
  bytes.set(from.subarray(0, used));
  return { bytes, used };
}

/** The store to append to after `used` bytes: the same one, unless another writer went on. */
function own(store: Store, used: number): Store {
  return store.used === used ? store : storeOf(store.bytes, used, store.bytes.length);
}

const TILE_BYTES = TILE_WIDTH * HASH_SIZE;

/**
 * Integrates `entries` (each at most 65,535 bytes, the most an entry bundle can carry) after the
 * log of `state`: their RFC 6962 leaf hashes, the hashes above them, the tiles and bundles to
 * store, the new root and the new state. No I/O; the batch may be empty. The states given and
 * returned are values: never changed (the returned ones are frozen), and the same state may be
 * integrated onto again.
 *
 * Integrating in batches gives the same full tiles, the same final partial tiles and the same
 * root as integrating at once. A state that is not one of a log (a partial tile of the wrong
 * width) is a `TypeError`.
 */
export function integrate(
  state: LogState,
  entries: readonly Uint8Array[],
  backend?: CryptoBackend & Partial<TreeHashing>,
): Integration {
  const b = backend ?? getBackend();
  const from = edgeOf(state, b);
  if (!Array.isArray(entries)) throw new TypeError('integrate: expected an array of entries');
  for (const e of entries) {
    if (!(e instanceof Uint8Array)) throw new TypeError('integrate: an entry is not a Uint8Array');
    if (e.length > 0xffff)
      throw new TypeError(`integrate: an entry of ${e.length} bytes (at most 65535)`);
  }
  if (state.size + BigInt(entries.length) > (1n << 64n) - 1n) {
    throw new TypeError('integrate: the log would pass 2^64 − 1 entries');
  }
  const levels = from.levels.map((l) => ({
    store: l.store,
    count: l.count,
    stack: l.stack.slice(),
    owned: false,
  }));
  const bundle = {
    store: from.bundle.store,
    count: from.bundle.count,
    used: from.bundle.used,
    owned: false,
  };

  // The size before entry i is `state.size + BigInt(i)`, made only where a tile completes: a
  // bigint sum an entry would cost more than the entry's tree arithmetic.
  const start = state.size;
  const tiles: TileData[] = [];
  const bundles: TileData[] = [];
  const touched: boolean[] = [];

  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    // tlog-tiles: the entry, big-endian u16 length-prefixed, at the end of the partial bundle.
    if (!bundle.owned) {
      bundle.store = own(bundle.store, bundle.used);
      bundle.owned = true;
    }
    let store = bundle.store;
    const at = bundle.used;
    if (store.bytes.length < at + 2 + entry.length) {
      store = storeOf(store.bytes, at, 2 * (at + 2 + entry.length));
      bundle.store = store;
    }
    store.bytes[at] = entry.length >> 8;
    store.bytes[at + 1] = entry.length & 0xff;
    store.bytes.set(entry, at + 2);
    bundle.used = at + 2 + entry.length;
    store.used = bundle.used;
    bundle.count++;
    if (bundle.count === TILE_WIDTH) {
      const tile: Tile = {
        level: 'entries',
        index: (start + BigInt(i)) >> 8n,
        width: TILE_WIDTH,
      };
      bundles.push({ tile, path: tilePath(tile), data: store.bytes.slice(0, bundle.used) });
      bundle.store = { bytes: new Uint8Array(store.bytes.length), used: 0 };
      bundle.used = 0;
      bundle.count = 0;
    }
  }

  // RFC 6962 §2.1: the leaf hashes, SHA-256(0x00 ‖ entry), of each run of entries of one length
  // in one call (a log's entries usually all have one length).
  const hashing = treeHashingOf(b);
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

  // Level by level, the new hashes of the level (its leaves, then the full tiles' MTHs of the
  // level below) appended after its partial tile: each height's nodes hashed in one call.
  let hashes: Uint8Array = leaves;
  let added = entries.length;
  let before = start; // the hashes of this level before the batch: ⌊start / 256^level⌋
  for (let level = 0; added > 0; level++) {
    if (levels[level] === undefined) {
      levels[level] = {
        store: { bytes: new Uint8Array(TILE_BYTES), used: 0 },
        count: 0,
        stack: [],
        owned: true,
      };
    }
    const l = levels[level]!;
    touched[level] = true;
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

    hashes = full > 0 ? nodes[8]! : new Uint8Array(0);
    added = full;
    before >>= 8n;
  }
  const size = start + BigInt(entries.length);

  // The partial tiles of the new size at each level the batch reached.
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
  let partialBundle = state.partialBundle;
  if (entries.length > 0) {
    partialBundle = bundle.store.bytes.slice(0, bundle.used);
    if (bundle.count > 0) {
      const tile: Tile = { level: 'entries', index: size >> 8n, width: bundle.count };
      bundles.push({ tile, path: tilePath(tile), data: partialBundle });
    }
  }

  // The root: the complete subtrees of [0, size), from the top level down, left to right.
  const subtrees: Uint8Array[] = [];
  for (let level = levels.length - 1; level >= 0; level--) {
    for (const t of levels[level]!.stack) subtrees.push(t.hash);
  }
  const root = subtrees.length === 0 ? emptyRoot(b) : foldRight(subtrees, b);
  const edge: Edge = {
    levels: levels.map((l) => ({ store: l.store, count: l.count, stack: l.stack })),
    bundle: { store: bundle.store, count: bundle.count, used: bundle.used },
  };
  const next = { size, partialTiles: Object.freeze(partialTiles), partialBundle };
  Object.defineProperty(next, EDGE, { value: edge });
  let leafHashes: Uint8Array[] | undefined;
  return {
    state: Object.freeze(next),
    size,
    root,
    // Made when read: a view of each leaf hash costs more than its share of the hashing.
    get leafHashes() {
      leafHashes ??= Array.from({ length: entries.length }, (_, i) =>
        leaves.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE),
      );
      return leafHashes;
    },
    tiles,
    bundles,
  };
}

/**
 * RFC 6962 hashes of many messages in one call, which a backend may offer beside `sha256`:
 * where a call costs more than the one or two blocks a leaf or a node hashes, {@link integrate}
 * hashes its leaves, and each height's nodes, in one call each. Both give new arrays, and keep
 * nothing of their input (a buffer `integrate` reuses).
 */
export interface TreeHashing {
  /**
   * The leaf hashes SHA-256(0x00 ‖ entry) of `count` entries of `length` bytes each, one after
   * the other in `entries`: 32 × `count` bytes.
   */
  leafHashes(entries: Uint8Array, count: number, length: number): Uint8Array;
  /**
   * The node hashes SHA-256(0x01 ‖ left ‖ right) of `count` pairs of 32-byte hashes, one after
   * the other in `pairs` (left, then right): 32 × `count` bytes.
   */
  nodeHashes(pairs: Uint8Array, count: number): Uint8Array;
}

/**
 * Two buffers reused for what is hashed (a run of entries, a height's pairs): a backend hashes
 * synchronously and keeps nothing of its input, and a new buffer of this size for each costs
 * more than a small batch's hashing.
 */
const scratch = [new Uint8Array(4096), new Uint8Array(4096)];

/** The first `bytes` bytes of scratch buffer `k`, grown as needed. */
function scratchOf(k: 0 | 1, bytes: number): Uint8Array {
  if (scratch[k]!.length < bytes)
    scratch[k] = new Uint8Array(Math.max(bytes, 2 * scratch[k]!.length));
  return scratch[k]!.subarray(0, bytes);
}

/** The batch hashing made for a backend without its own, per backend. */
const oneByOne = new WeakMap<CryptoBackend, TreeHashing>();
/** The message hashed, reused: the backends hash synchronously and keep nothing. */
let message = new Uint8Array(1 + 2 * HASH_SIZE);

/** The backend's batch hashing, else one `sha256` call a message. */
function treeHashingOf(b: CryptoBackend & Partial<TreeHashing>): TreeHashing {
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
function hashesOf(bytes: Uint8Array, count: number): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== count * HASH_SIZE) {
    throw new TypeError(`integrate: the backend gave no ${count} hashes of 32 bytes`);
  }
  return bytes;
}

/** The hash of the complete subtree of `width` hashes in a partial tile's stack. */
function stackHash(stack: readonly Subtree[], width: number): Uint8Array {
  const found = stack.find((t) => t.width === width);
  if (found === undefined) throw new Error(`integrate: no subtree of width ${width} on the edge`);
  return found.hash;
}

/** The edge of a state: kept on it when `integrate` made it, else read from it (and checked). */
function edgeOf(state: LogState, backend: CryptoBackend): Edge {
  if (state === null || typeof state !== 'object')
    throw new TypeError('integrate: expected a LogState');
  const kept = (state as { [EDGE]?: Edge })[EDGE];
  if (kept !== undefined) return kept;
  const { levels, bundle, bundleBytes } = openState(state);
  return {
    levels: levels.map((bytes) => {
      const count = bytes.length / HASH_SIZE;
      const stack: Subtree[] = [];
      let first = 0;
      for (let h = 7; h >= 0; h--) {
        if ((count & (1 << h)) === 0) continue;
        stack.push({ width: 1 << h, hash: subtreeInTile(bytes, first, 1 << h, backend) });
        first += 1 << h;
      }
      return { store: storeOf(bytes, bytes.length, TILE_BYTES), count, stack };
    }),
    bundle: {
      store: storeOf(bundleBytes, bundleBytes.length, 2 * bundleBytes.length + 64),
      count: bundle,
      used: bundleBytes.length,
    },
  };
}

/** The state's partial tiles (bytes, by level) and partial bundle (its entry count); checked. */
function openState(state: LogState): {
  levels: Uint8Array[];
  bundle: number;
  bundleBytes: Uint8Array;
} {
  checkU64(state.size, 'integrate: state.size');
  if (!Array.isArray(state.partialTiles)) {
    throw new TypeError('integrate: state.partialTiles: expected an array');
  }
  const levels: Uint8Array[] = [];
  for (let level = 0; level < Math.max(state.partialTiles.length, 8); level++) {
    const width = Number((state.size >> BigInt(8 * level)) & 255n);
    const bytes = state.partialTiles[level] ?? new Uint8Array(0);
    if (!(bytes instanceof Uint8Array) || bytes.length !== width * HASH_SIZE) {
      throw new TypeError(
        `integrate: state.partialTiles[${level}] must be ${width * HASH_SIZE} bytes for size ${state.size}`,
      );
    }
    if (level < state.partialTiles.length || width > 0) levels.push(bytes);
  }
  while (levels.length > 0 && levels[levels.length - 1]!.length === 0) levels.pop();
  const width = Number(state.size & 255n);
  if (!(state.partialBundle instanceof Uint8Array)) {
    throw new TypeError('integrate: state.partialBundle: expected a Uint8Array');
  }
  if (width > 0 || state.partialBundle.length > 0) {
    const read = readEntryBundle(state.partialBundle, width === 0 ? undefined : width);
    if (!read.ok || width === 0) {
      throw new TypeError(
        `integrate: state.partialBundle must hold ${width} entries for size ${state.size}`,
      );
    }
  }
  return { levels, bundle: width, bundleBytes: state.partialBundle };
}
