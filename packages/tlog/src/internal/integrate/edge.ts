// The first step of an integration: the rightmost edge of the log, which the batch extends. Kept
// on the states `integrate` returns; read from (and checked against) any other state.
import type { CryptoBackend } from '@wai-steering/wire';
import { readEntryBundle } from '../../entries.js';
import type { LogState } from '../../log-state.js';
import { TILE_WIDTH } from '../../tiles.js';
import { checkU64, HASH_SIZE, subtreeInTile } from '../hash.js';

/** The bytes of a full tile. */
export const TILE_BYTES = TILE_WIDTH * HASH_SIZE;

/**
 * Bytes appended to by successive states: a buffer and how much of it the latest writer filled.
 * A state's edge records how much is its own; a writer that finds more written (someone
 * integrated onto the same state before) copies its part first. So a chain of states shares one
 * buffer, and integrating twice onto one state stays correct.
 */
export interface Store {
  bytes: Uint8Array;
  used: number;
}

/** A complete subtree of a partial tile: its width in hashes (a power of two) and its hash. */
export interface Subtree {
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
export interface Edge {
  readonly levels: readonly { store: Store; count: number; stack: Subtree[] }[];
  /** The partial bundle: its store, its entries and how many of the store's bytes are its own. */
  readonly bundle: { store: Store; count: number; used: number };
}

const EDGE = Symbol('edge');

/** A store of `capacity` bytes holding `used` bytes of `from` (a copy). */
export function storeOf(from: Uint8Array, used: number, capacity: number): Store {
  const bytes = new Uint8Array(Math.max(capacity, used));
  bytes.set(from.subarray(0, used));
  return { bytes, used };
}

/** The store to append to after `used` bytes: the same one, unless another writer went on. */
export function own(store: Store, used: number): Store {
  return store.used === used ? store : storeOf(store.bytes, used, store.bytes.length);
}

/** The hash of the complete subtree of `width` hashes in a partial tile's stack. */
export function stackHash(stack: readonly Subtree[], width: number): Uint8Array {
  const found = stack.find((t) => t.width === width);
  if (found === undefined) throw new Error(`integrate: no subtree of width ${width} on the edge`);
  return found.hash;
}

/** `state`, frozen, with `edge` kept on it for the next batch. */
export function keepEdge(state: LogState, edge: Edge): LogState {
  Object.defineProperty(state, EDGE, { value: edge });
  return Object.freeze(state);
}

/** The edge of a state: kept on it when `integrate` made it, else read from it (and checked). */
export function edgeOf(state: LogState, backend: CryptoBackend): Edge {
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
