// What a log's writer keeps between batches (its state), and what it stores (tiles and entry
// bundles at their paths): the values `integrate` takes and gives.
import type { Tile } from './tiles.js';

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
