// An in-memory log for the tests: entries, their integration, and a tile server over it.
import { nodeBackend } from '@wai-steering/wire/node';
import {
  emptyLogState,
  encodeEntry,
  type Integration,
  integrate,
  type Tile,
  type TileFetcher,
  tilePath,
} from '../../src/index.js';
import { sha256 } from './naive.js';

/** Entry `i` of the test logs: `t = i` and the SHA-256 of i's decimal as the digest. */
export function entryAt(i: number): Uint8Array {
  return encodeEntry({ t: BigInt(i), digest: sha256(new TextEncoder().encode(String(i))) });
}

export function entries(from: number, to: number): Uint8Array[] {
  return Array.from({ length: to - from }, (_, k) => entryAt(from + k));
}

/** Every tile and bundle written, by path (later writes of the same path replace earlier ones). */
export type Store = Map<string, Uint8Array>;

export function store(into: Store, result: Integration): void {
  for (const t of [...result.tiles, ...result.bundles]) into.set(t.path, t.data);
}

/** A log of `n` entries integrated at once, on node's backend, with its store. */
export function buildLog(n: number): { result: Integration; store: Store } {
  const s: Store = new Map();
  const result = integrate(emptyLogState(), entries(0, n), nodeBackend);
  store(s, result);
  return { result, store: s };
}

/**
 * A fetcher over a store of a larger log: a partial tile of a smaller size is the prefix of the
 * store's tile at that index (full, or partial at the store's size), as every hash of a complete
 * subtree stays the same. Counts the calls per path.
 */
export function prefixFetcher(
  s: Store,
  calls = new Map<string, number>(),
): TileFetcher & { calls: Map<string, number> } {
  const f = async (tile: Tile, path: string): Promise<Uint8Array | undefined> => {
    calls.set(path, (calls.get(path) ?? 0) + 1);
    if (path !== tilePath(tile)) throw new Error(`path ${path} is not the tile's`);
    const exact = s.get(path);
    if (exact !== undefined) return exact;
    // The store's own tile at that index: full, or its partial of any width.
    let bytes = s.get(tilePath({ ...tile, width: 256 }));
    if (bytes === undefined) {
      for (let w = 255; w > tile.width && bytes === undefined; w--)
        bytes = s.get(tilePath({ ...tile, width: w }));
    }
    if (bytes === undefined) return undefined;
    if (tile.level === 'entries') return bundlePrefix(bytes, tile.width);
    return bytes.slice(0, tile.width * 32);
  };
  return Object.assign(f, { calls });
}

function bundlePrefix(bytes: Uint8Array, count: number): Uint8Array {
  let at = 0;
  for (let i = 0; i < count; i++) at += 2 + ((bytes[at]! << 8) | bytes[at + 1]!);
  return bytes.slice(0, at);
}
