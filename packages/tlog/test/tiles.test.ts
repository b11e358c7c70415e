import { describe, expect, it } from 'vitest';
import { parseTilePath, tileOf, tilePath, tilesOf } from '../src/index.js';

describe('tlog-tiles paths', () => {
  it('writes the index in 3-digit elements, all but the last with an x (the text’s example)', () => {
    expect(tilePath({ level: 0, index: 1234067n, width: 256 })).toEqual('tile/0/x001/x234/067');
    expect(tilePath({ level: 1, index: 0n, width: 256 })).toEqual('tile/1/000');
    expect(tilePath({ level: 2, index: 1000n, width: 1 })).toEqual('tile/2/x001/000.p/1');
    expect(tilePath({ level: 63, index: 999n, width: 255 })).toEqual('tile/63/999.p/255');
    expect(tilePath({ level: 'entries', index: 273n, width: 112 })).toEqual(
      'tile/entries/273.p/112',
    );
    expect(tilePath({ level: 'entries', index: (1n << 64n) - 1n, width: 256 })).toEqual(
      'tile/entries/x018/x446/x744/x073/x709/x551/615',
    );
  });

  it('reads what it writes', () => {
    for (const tile of [
      { level: 0, index: 1234067n, width: 256 },
      { level: 'entries' as const, index: 0n, width: 1 },
      { level: 7, index: 1000000n, width: 17 },
      { level: 'entries' as const, index: (1n << 64n) - 1n, width: 256 },
    ]) {
      expect(parseTilePath(tilePath(tile))).toEqual({ ok: true, value: tile });
    }
  });

  it('refuses every other spelling', () => {
    const junk = [
      '',
      'tile/0',
      'tile/0/',
      '/tile/0/000',
      'tile/0/000/',
      'tile/00/000', // a leading zero in the level
      'tile/01/000',
      'tile/64/000', // above 63
      'tile/-1/000',
      'tile/x/000',
      'tile/Entries/000',
      'tile/entry/000',
      'tile/0/00', // not 3 digits
      'tile/0/0000',
      'tile/0/1',
      'tile/0/x000/001', // a second spelling of 1
      'tile/0/x001', // the last element has no x
      'tile/0/001/002', // a non-last element without x
      'tile/0/x1/002',
      'tile/0/X001/002',
      'tile/0/000.p/0', // width 0
      'tile/0/000.p/256', // a full tile has no .p
      'tile/0/000.p/300',
      'tile/0/000.p/01', // a leading zero in the width
      'tile/0/000.p/',
      'tile/0/000.p',
      'tile/0/000.P/1',
      'tile/0/000.p/1/',
      'tile/0/x018/x446/x744/x073/x709/x551/616', // 2^64
      'tile/0/ 000',
      'tile/0/000\n',
      'tile/0/００0',
      'tiles/0/000',
      'TILE/0/000',
    ];
    for (const path of junk) {
      const read = parseTilePath(path);
      expect({ path, reason: read.ok ? 'accepted' : read.refusal.reason }).toEqual({
        path,
        reason: 'malformed',
      });
    }
  });

  it('is a TypeError for a tile that is not one', () => {
    expect(() => tilePath({ level: 64, index: 0n, width: 256 })).toThrow(TypeError);
    expect(() => tilePath({ level: 0, index: 0n, width: 0 })).toThrow(TypeError);
    expect(() => tilePath({ level: 0, index: 0n, width: 257 })).toThrow(TypeError);
    expect(() => tilePath({ level: 0, index: -1n, width: 1 })).toThrow(TypeError);
    expect(() => tilePath({ level: 0, index: 1 as unknown as bigint, width: 1 })).toThrow(
      TypeError,
    );
    expect(() => parseTilePath(1 as unknown as string)).toThrow(TypeError);
  });
});

describe('the tiles of a tree', () => {
  it('of size 70,000 (the text’s example)', () => {
    expect(tilesOf(70_000n)).toEqual([
      { level: 0, full: 273n, partial: 112 },
      { level: 1, full: 1n, partial: 17 },
      { level: 2, full: 0n, partial: 1 },
    ]);
  });

  it('of size 256: a full level-0 tile and a partial level-1 tile of width 1 (the text’s example)', () => {
    expect(tilesOf(256n)).toEqual([
      { level: 0, full: 1n, partial: 0 },
      { level: 1, full: 0n, partial: 1 },
    ]);
  });

  it('of sizes 0, 1, 255, 65535, 65536 and 2^64 − 1', () => {
    expect(tilesOf(0n)).toEqual([]);
    expect(tilesOf(1n)).toEqual([{ level: 0, full: 0n, partial: 1 }]);
    expect(tilesOf(255n)).toEqual([{ level: 0, full: 0n, partial: 255 }]);
    expect(tilesOf(65535n)).toEqual([
      { level: 0, full: 255n, partial: 255 },
      { level: 1, full: 0n, partial: 255 },
    ]);
    expect(tilesOf(65536n)).toEqual([
      { level: 0, full: 256n, partial: 0 },
      { level: 1, full: 1n, partial: 0 },
      { level: 2, full: 0n, partial: 1 },
    ]);
    const max = tilesOf((1n << 64n) - 1n);
    expect(max.length).toEqual(8);
    expect(max.map((l) => l.partial)).toEqual([255, 255, 255, 255, 255, 255, 255, 255]);
    expect(max[7]!.full).toEqual(0n);
  });

  it('names each tile, full or partial, and no other', () => {
    expect(tileOf(70_000n, 0, 272n)).toEqual({ level: 0, index: 272n, width: 256 });
    expect(tileOf(70_000n, 0, 273n)).toEqual({ level: 0, index: 273n, width: 112 });
    expect(tileOf(70_000n, 0, 274n)).toBeUndefined();
    expect(tileOf(70_000n, 'entries', 273n)).toEqual({ level: 'entries', index: 273n, width: 112 });
    expect(tileOf(70_000n, 1, 1n)).toEqual({ level: 1, index: 1n, width: 17 });
    expect(tileOf(70_000n, 2, 0n)).toEqual({ level: 2, index: 0n, width: 1 });
    expect(tileOf(70_000n, 3, 0n)).toBeUndefined();
    expect(tileOf(256n, 0, 1n)).toBeUndefined();
  });
});
