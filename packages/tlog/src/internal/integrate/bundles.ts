// The entries of a batch appended to the log's entry bundles (tlog-tiles): each big-endian u16
// length-prefixed after the partial bundle, a full bundle stored every 256 entries.
import type { TileData } from '../../log-state.js';
import { TILE_WIDTH, type Tile, tilePath } from '../../tiles.js';
import { type Edge, own, type Store, storeOf } from './edge.js';

/** The partial bundle as a batch appends to it: the edge's, and whether its store is the batch's. */
export interface BundleInProgress {
  store: Store;
  count: number;
  used: number;
  owned: boolean;
}

/** The edge's partial bundle, to append to (its store copied only when another writer went on). */
export function bundleOf(edge: Edge): BundleInProgress {
  const { store, count, used } = edge.bundle;
  return { store, count, used, owned: false };
}

/**
 * Appends `entries` to `bundle`, the log's size before them being `start`: the full bundles they
 * complete, to store.
 */
export function appendEntries(
  bundle: BundleInProgress,
  entries: readonly Uint8Array[],
  start: bigint,
): TileData[] {
  const bundles: TileData[] = [];
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
      // The size before entry i, `start + i`, made only where a bundle completes: a bigint sum
      // an entry would cost more than the entry's tree arithmetic.
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
  return bundles;
}

/**
 * The partial bundle of the log of `size` entries after the batch (appended to `bundles` when it
 * holds an entry); the state's own when the batch was empty.
 */
export function closeBundle(
  bundle: BundleInProgress,
  size: bigint,
  batch: number,
  previous: Uint8Array,
  bundles: TileData[],
): Uint8Array {
  if (batch === 0) return previous;
  const partial = bundle.store.bytes.slice(0, bundle.used);
  if (bundle.count > 0) {
    const tile: Tile = { level: 'entries', index: size >> 8n, width: bundle.count };
    bundles.push({ tile, path: tilePath(tile), data: partial });
  }
  return partial;
}
