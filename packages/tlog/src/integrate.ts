// The log's writer side: a batch of new entries integrated into the tree, in memory. The result
// is every byte the log must store for the new size (tlog-tiles: tiles and entry bundles), so
// that a server can keep it in one transaction with the checkpoint it signs.
//
// The steps, each in a module of `internal/integrate/`: the edge of the log the batch extends
// (`edge.ts`), the entries appended to the bundles (`bundles.ts`), their leaf hashes
// (`leaves.ts`), each level's node hashes and tiles (`levels.ts`, hashing through `hashing.ts`),
// and the root of the new size (`root.ts`).
import { type CryptoBackend, getBackend } from '@wai-steering/wire';
import { HASH_SIZE } from './internal/hash.js';
import { appendEntries, bundleOf, closeBundle } from './internal/integrate/bundles.js';
import { type Edge, edgeOf, keepEdge } from './internal/integrate/edge.js';
import { treeHashingOf } from './internal/integrate/hashing.js';
import { leafHashesOf } from './internal/integrate/leaves.js';
import { integrateLevel, levelsOf, newLevel, partialTilesOf } from './internal/integrate/levels.js';
import { rootOfEdge } from './internal/integrate/root.js';
import type { LogState, TileData } from './log-state.js';
import type { TreeHashing } from './tree-hashing.js';

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
  const start = state.size;
  const size = start + BigInt(entries.length);

  const bundle = bundleOf(from);
  const bundles = appendEntries(bundle, entries, start);

  const hashing = treeHashingOf(b);
  const leaves = leafHashesOf(entries, hashing);

  const levels = levelsOf(from);
  const tiles: TileData[] = [];
  const touched: boolean[] = [];
  let hashes = leaves;
  let added = entries.length;
  let before = start; // the hashes of this level before the batch: ⌊start / 256^level⌋
  for (let level = 0; added > 0; level++) {
    levels[level] ??= newLevel();
    touched[level] = true;
    hashes = integrateLevel(levels[level]!, level, hashes, added, before, hashing, tiles);
    added = hashes.length / HASH_SIZE;
    before >>= 8n;
  }

  const partialTiles = partialTilesOf(levels, touched, state, size, tiles);
  const partialBundle = closeBundle(bundle, size, entries.length, state.partialBundle, bundles);
  const root = rootOfEdge(levels, b);
  const edge: Edge = {
    levels: levels.map((l) => ({ store: l.store, count: l.count, stack: l.stack })),
    bundle: { store: bundle.store, count: bundle.count, used: bundle.used },
  };
  const next = keepEdge({ size, partialTiles: Object.freeze(partialTiles), partialBundle }, edge);
  let leafHashes: Uint8Array[] | undefined;
  return {
    state: next,
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
