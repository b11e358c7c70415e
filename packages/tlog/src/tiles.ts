// tlog-tiles: tile and entry bundle paths, and which tiles a tree of a size has.
import { checkU64 } from './internal/hash.js';
import { attempt } from './internal/result.js';
import { U64_MAX } from './internal/text.js';
import { TlogRefusal, type TlogResult } from './refusal.js';

/** tlog-tiles: "Full tiles MUST be exactly 256 hashes wide". Entry bundles too. */
export const TILE_WIDTH = 256;
/** tlog-tiles: `<L>` "between 0 and 63". */
export const MAX_TILE_LEVEL = 63;

/**
 * A tile of hashes (`level` 0 to 63) or an entry bundle (`level: 'entries'`): its index in its
 * level and its width, 256 for a full tile and 1 to 255 for a partial one.
 */
export interface Tile {
  readonly level: number | 'entries';
  readonly index: bigint;
  readonly width: number;
}

/**
 * tlog-tiles: the path of a tile, `tile/<L>/<N>[.p/<W>]`, or of an entry bundle,
 * `tile/entries/<N>[.p/<W>]`, relative to the log's prefix. `<N>` is written in zero-padded
 * 3-digit elements, all but the last beginning with `x` (index 1234067 is `x001/x234/067`).
 */
export function tilePath(tile: Tile): string {
  checkTile(tile, 'tilePath');
  let n = '';
  let index = tile.index;
  // The last element first, then each earlier one with its `x`.
  n = pad3(Number(index % 1000n));
  index /= 1000n;
  while (index > 0n) {
    n = `x${pad3(Number(index % 1000n))}/${n}`;
    index /= 1000n;
  }
  const partial = tile.width === TILE_WIDTH ? '' : `.p/${tile.width}`;
  return `tile/${tile.level}/${n}${partial}`;
}

function pad3(v: number): string {
  return v < 10 ? `00${v}` : v < 100 ? `0${v}` : `${v}`;
}

const PATH =
  /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/**
 * Reads a tile or entry bundle path strictly: the level 0 to 63 (or `entries`) with no leading
 * zero, the index in its one canonical spelling (no `x000` element first, at most 2^64 − 1), a
 * width 1 to 255 with no leading zero after `.p/`. Anything else refuses `malformed`.
 */
export function parseTilePath(path: string): TlogResult<Tile> {
  if (typeof path !== 'string') throw new TypeError('parseTilePath: expected a string');
  return attempt(() => {
    const bad = (detail: string): never => {
      throw new TlogRefusal('malformed', { what: 'tile path' }, detail);
    };
    if (path.length > 128) bad('too long');
    const m = PATH.exec(path);
    if (m === null) bad('not tile/<L>/<N>[.p/<W>]');
    const [, l, xs, last, w] = m!;
    const level = l === 'entries' ? 'entries' : Number(l);
    if (level !== 'entries' && level > MAX_TILE_LEVEL) bad('a level above 63');
    const elements = xs === '' ? [] : xs!.slice(0, -1).split('/');
    if (elements.length > 0 && elements[0] === 'x000') bad('a leading x000 element');
    let index = 0n;
    for (const e of elements) index = index * 1000n + BigInt(e.slice(1));
    index = index * 1000n + BigInt(last!);
    if (index > U64_MAX) bad('an index above 2^64 − 1');
    if (w !== undefined && Number(w) > 255) bad('a width above 255');
    const width = w === undefined ? TILE_WIDTH : Number(w);
    return { level, index, width };
  });
}

/** The tiles of one level of a tree: how many full ones, and the width of the partial one. */
export interface LevelTiles {
  readonly level: number;
  /** Full tiles, indexes 0 to `full − 1`. */
  readonly full: bigint;
  /** The width of the partial tile at index `full`; 0 when there is none. */
  readonly partial: number;
}

/**
 * tlog-tiles: the tiles a tree of `size` leaves has, level by level, up to the highest level
 * with a tile. "The partial tile at level l for a tree of size s has floor(s / 256**l) mod 256
 * entries." A size of 70,000 has 273 full level-0 tiles and a partial one of width 112, one full
 * level-1 tile and a partial one of width 17, and a partial level-2 tile of width 1. Its entry
 * bundles are those of level 0.
 */
export function tilesOf(size: bigint): LevelTiles[] {
  checkU64(size, 'tilesOf: size');
  const out: LevelTiles[] = [];
  for (let level = 0; size >> BigInt(8 * level) > 0n; level++) {
    const hashes = size >> BigInt(8 * level);
    out.push({ level, full: hashes >> 8n, partial: Number(hashes & 255n) });
  }
  return out;
}

/**
 * The tile at `level` and `index` of a tree of `size` leaves, with its width (256 when it is
 * full); `undefined` when the tree has no such tile.
 */
export function tileOf(size: bigint, level: number | 'entries', index: bigint): Tile | undefined {
  checkU64(size, 'tileOf: size');
  checkU64(index, 'tileOf: index');
  const l = level === 'entries' ? 0 : level;
  if (!Number.isInteger(l) || l < 0 || l > MAX_TILE_LEVEL)
    throw new TypeError('tileOf: level 0 to 63');
  const hashes = size >> BigInt(8 * l);
  const full = hashes >> 8n;
  if (index < full) return { level, index, width: TILE_WIDTH };
  const partial = Number(hashes & 255n);
  if (index === full && partial > 0) return { level, index, width: partial };
  return undefined;
}

function checkTile(tile: Tile, what: string): void {
  if (tile === null || typeof tile !== 'object') throw new TypeError(`${what}: expected a Tile`);
  const { level, index, width } = tile;
  if (level !== 'entries' && (!Number.isInteger(level) || level < 0 || level > MAX_TILE_LEVEL)) {
    throw new TypeError(`${what}: level must be 0 to 63 or 'entries'`);
  }
  checkU64(index, `${what}: index`);
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) {
    throw new TypeError(`${what}: width must be 1 to 256`);
  }
}
