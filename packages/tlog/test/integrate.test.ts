import { nobleBackend } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { describe, expect, it } from 'vitest';
import {
  emptyLogState,
  integrate,
  type LogState,
  leafHash,
  readEntryBundle,
  rootOf,
  tilePath,
  tilesOf,
} from '../src/index.js';
import { buildLog, entries } from './helpers/log.js';
import { hex, mth, sha256 } from './helpers/naive.js';

const SIZE = 70_000;
const big = buildLog(SIZE);
const leaves = entries(0, SIZE);
const leafHashes = leaves.map((e) => sha256(Uint8Array.of(0), e));

/** The MTH of leaves [start, end) from the leaf hashes, on node:crypto alone. */
function subtree(start: number, end: number): Uint8Array {
  let level = leafHashes.slice(start, end);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(sha256(Uint8Array.of(1), level[i]!, level[i + 1]!));
    level = next;
  }
  return level[0]!;
}

describe('integrate', () => {
  it('gives the leaf hashes of RFC 6962 and the root of the literal MTH (small logs, both backends)', () => {
    for (const n of [0, 1, 2, 3, 7, 8, 9, 255, 256, 257, 600]) {
      const batch = entries(0, n);
      for (const backend of [nodeBackend, nobleBackend]) {
        const r = integrate(emptyLogState(), batch, backend);
        expect(r.size).toEqual(BigInt(n));
        expect(r.leafHashes.map(hex)).toEqual(batch.map((e) => hex(sha256(Uint8Array.of(0), e))));
        expect(hex(r.root)).toEqual(hex(mth(batch)));
      }
    }
  });

  it('writes, for 70,000 entries, the tiles tlog-tiles names: 273 + 1 full level-0 and level-1 tiles, partials of 112, 17 and 1', () => {
    const { result } = big;
    const got = result.tiles.map((t) => t.path);
    const want: string[] = [];
    for (const l of tilesOf(BigInt(SIZE))) {
      for (let n = 0n; n < l.full; n++)
        want.push(tilePath({ level: l.level, index: n, width: 256 }));
      if (l.partial > 0) want.push(tilePath({ level: l.level, index: l.full, width: l.partial }));
    }
    expect(new Set(got)).toEqual(new Set(want));
    expect(got.length).toEqual(273 + 1 + 1 + 1 + 1);
    expect(got).toContain('tile/0/273.p/112');
    expect(got).toContain('tile/1/001.p/17');
    expect(got).toContain('tile/2/000.p/1');
    expect(result.bundles.map((b) => b.path).filter((p) => p.includes('.p/'))).toEqual([
      'tile/entries/273.p/112',
    ]);
    expect(result.bundles.length).toEqual(274);
  });

  it('fills each tile with the hashes tlog-tiles defines: MTH(D[(n·256 + i)·256^l : (n·256 + i + 1)·256^l])', () => {
    const { store } = big;
    const check = (path: string, level: number, n: number, width: number) => {
      const data = store.get(path)!;
      expect({ path, bytes: data.length }).toEqual({ path, bytes: width * 32 });
      const span = 256 ** level;
      // Every hash of level 0, the first and last of the higher levels (each is a big subtree).
      const indexes = level === 0 ? [...Array(width).keys()] : [0, width - 1];
      for (const i of indexes) {
        const start = (n * 256 + i) * span;
        expect({ path, i, hash: hex(data.subarray(i * 32, i * 32 + 32)) }).toEqual({
          path,
          i,
          hash: hex(subtree(start, start + span)),
        });
      }
    };
    check('tile/0/000', 0, 0, 256);
    check('tile/0/272', 0, 272, 256);
    check('tile/0/273.p/112', 0, 273, 112);
    check('tile/1/000', 1, 0, 256);
    check('tile/1/001.p/17', 1, 1, 17);
    check('tile/2/000.p/1', 2, 0, 1);
  });

  it('writes entry bundles holding the entries, 256 a bundle', () => {
    const { store } = big;
    const first = readEntryBundle(store.get('tile/entries/000')!, 256);
    expect(first.ok && first.value.map(hex)).toEqual(leaves.slice(0, 256).map(hex));
    const last = readEntryBundle(store.get('tile/entries/273.p/112')!, 112);
    expect(last.ok && last.value.map(hex)).toEqual(leaves.slice(273 * 256).map(hex));
  });

  it('gives the root rootOf gives over the same leaf hashes, and a state that reads back its partial tiles', () => {
    const { result, store } = big;
    expect(hex(result.root)).toEqual(hex(rootOf(leafHashes)));
    expect(result.state.partialTiles.map(hex)).toEqual(
      ['tile/0/273.p/112', 'tile/1/001.p/17', 'tile/2/000.p/1'].map((p) => hex(store.get(p)!)),
    );
    expect(hex(result.state.partialBundle)).toEqual(hex(store.get('tile/entries/273.p/112')!));
  });

  it('continues from a state: the same tiles and root as at once, only the changed partial tiles written', () => {
    const first = integrate(emptyLogState(), leaves.slice(0, 65_535), nodeBackend);
    const second = integrate(first.state, leaves.slice(65_535, 65_537), nodeBackend);
    const once = integrate(emptyLogState(), leaves.slice(0, 65_537), nodeBackend);
    expect(hex(second.root)).toEqual(hex(once.root));
    expect(second.tiles.map((t) => t.path)).toEqual([
      'tile/0/255',
      'tile/1/000',
      'tile/0/256.p/1',
      'tile/2/000.p/1',
    ]);
    // Adding one entry to a size whose level-1 partial tile does not change leaves it unwritten.
    const third = integrate(once.state, leaves.slice(65_537, 65_538), nodeBackend);
    expect(third.tiles.map((t) => t.path)).toEqual(['tile/0/256.p/2']);
    expect(third.bundles.map((t) => t.path)).toEqual(['tile/entries/256.p/2']);
    const empty = integrate(once.state, [], nodeBackend);
    expect({ tiles: empty.tiles, bundles: empty.bundles, root: hex(empty.root) }).toEqual({
      tiles: [],
      bundles: [],
      root: hex(once.root),
    });
  });

  it('integrates onto one state twice (branches), and onto a state read back from storage, alike', () => {
    const rootOfFirst = (n: number) => hex(rootOf(leafHashes.slice(0, n)));
    const base = integrate(emptyLogState(), leaves.slice(0, 300), nodeBackend).state;
    const a = integrate(base, leaves.slice(300, 310), nodeBackend);
    // Another batch onto the same state: the entries 300.. of another log.
    const other = [new Uint8Array(40).fill(1), new Uint8Array(40).fill(2)];
    const b = integrate(base, other, nodeBackend);
    const c = integrate(a.state, leaves.slice(310, 600), nodeBackend);
    const d = integrate(b.state, [], nodeBackend);
    // An empty batch onto the first state after a branch went on from it, then more.
    const e = integrate(
      integrate(base, [], nodeBackend).state,
      leaves.slice(300, 600),
      nodeBackend,
    );
    expect(hex(e.root)).toEqual(rootOfFirst(600));
    expect(e.bundles.map((t) => [t.path, hex(t.data)])).toEqual(
      integrate(base, leaves.slice(300, 600), nodeBackend).bundles.map((t) => [
        t.path,
        hex(t.data),
      ]),
    );
    expect(hex(a.root)).toEqual(rootOfFirst(310));
    expect(hex(c.root)).toEqual(rootOfFirst(600));
    expect(hex(b.root)).toEqual(hex(mth([...leaves.slice(0, 300), ...other])));
    expect(hex(d.root)).toEqual(hex(b.root));
    // The state as a store would keep it: plain bytes, nothing else.
    const stored: LogState = {
      size: a.state.size,
      partialTiles: a.state.partialTiles.map((t) => t.slice()),
      partialBundle: a.state.partialBundle.slice(),
    };
    const fromStored = integrate(stored, leaves.slice(310, 600), nodeBackend);
    expect(hex(fromStored.root)).toEqual(hex(c.root));
    expect(fromStored.tiles.map((t) => [t.path, hex(t.data)])).toEqual(
      c.tiles.map((t) => [t.path, hex(t.data)]),
    );
    expect(fromStored.bundles.map((t) => [t.path, hex(t.data)])).toEqual(
      c.bundles.map((t) => [t.path, hex(t.data)]),
    );
    expect(Object.isFrozen(a.state)).toEqual(true);
  });

  it('is a TypeError for a state that is not a log’s, or an entry that a bundle cannot carry', () => {
    const one = integrate(emptyLogState(), leaves.slice(0, 1), nodeBackend).state;
    const bad: LogState[] = [
      { ...one, size: 2n },
      { ...one, partialTiles: [] },
      { ...one, partialTiles: [new Uint8Array(31)] },
      { ...one, partialBundle: new Uint8Array(0) },
      { ...emptyLogState(), partialBundle: one.partialBundle },
      { ...emptyLogState(), partialTiles: [new Uint8Array(32)] },
    ];
    for (const state of bad) expect(() => integrate(state, [], nodeBackend)).toThrow(TypeError);
    expect(() => integrate(emptyLogState(), [new Uint8Array(65_536)])).toThrow(TypeError);
    expect(() => integrate(emptyLogState(), ['x' as unknown as Uint8Array])).toThrow(TypeError);
  });

  it('takes entries of any length a bundle carries, the empty one and 65,535 bytes included', () => {
    const odd = [new Uint8Array(0), new Uint8Array(65_535).fill(7), Uint8Array.of(1, 2, 3)];
    const r = integrate(emptyLogState(), odd, nodeBackend);
    expect(hex(r.root)).toEqual(hex(mth(odd)));
    expect(r.leafHashes.map(hex)).toEqual(odd.map((e) => hex(leafHash(e))));
    const read = readEntryBundle(r.bundles[0]!.data, 3);
    expect(read.ok && read.value.map(hex)).toEqual(odd.map(hex));
  });

  it('hashes a backend’s batches alike: a call for each run of leaves and each height of nodes', () => {
    const calls = { leaves: 0, nodes: 0 };
    const batching = {
      ...nobleBackend,
      leafHashes(data: Uint8Array, count: number, length: number) {
        calls.leaves++;
        const out = new Uint8Array(32 * count);
        for (let i = 0; i < count; i++)
          out.set(sha256(Uint8Array.of(0), data.subarray(i * length, (i + 1) * length)), 32 * i);
        return out;
      },
      nodeHashes(pairs: Uint8Array, count: number) {
        calls.nodes++;
        const out = new Uint8Array(32 * count);
        for (let i = 0; i < count; i++)
          out.set(sha256(Uint8Array.of(1), pairs.subarray(64 * i, 64 * i + 64)), 32 * i);
        return out;
      },
    };
    // Batches of sizes that start and end anywhere in a tile, onto states made both ways.
    const cuts = [0, 1, 2, 255, 256, 257, 700, 65_535, 65_536, 65_537, 66_000, SIZE];
    let batched = emptyLogState();
    let single = emptyLogState();
    for (let k = 1; k < cuts.length; k++) {
      const batch = leaves.slice(cuts[k - 1]!, cuts[k]!);
      calls.leaves = 0;
      calls.nodes = 0;
      const a = integrate(batched, batch, batching);
      const b = integrate(single, batch, nobleBackend);
      expect(hex(a.root)).toEqual(hex(rootOf(leafHashes.slice(0, cuts[k]!))));
      expect(hex(a.root)).toEqual(hex(b.root));
      expect(a.tiles.map((t) => [t.path, hex(t.data)])).toEqual(
        b.tiles.map((t) => [t.path, hex(t.data)]),
      );
      expect(a.leafHashes.map(hex)).toEqual(leafHashes.slice(cuts[k - 1]!, cuts[k]!).map(hex));
      expect(calls.leaves).toBe(1);
      // At most 8 heights a level, and a level above each 256 of the one below.
      expect(calls.nodes).toBeLessThanOrEqual(
        8 * Math.ceil(Math.log(batch.length + 1) / Math.log(256) + 1),
      );
      batched = a.state;
      single = b.state;
    }
    const wrong = { ...batching, nodeHashes: () => new Uint8Array(31) };
    expect(() => integrate(emptyLogState(), leaves.slice(0, 2), wrong)).toThrow(TypeError);
  });
});
