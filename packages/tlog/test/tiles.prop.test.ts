import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyLogState,
  type Integration,
  integrate,
  type LogState,
  leafHash,
  parseTilePath,
  rootOf,
  type Tile,
  TileHashReader,
  tileOf,
  tilePath,
  verifyConsistency,
  verifyInclusion,
} from '../src/index.js';
import { buildLog, entries, prefixFetcher, type Store, store } from './helpers/log.js';
import { mutate, mutation, runs } from './helpers/mutate.js';
import { hex } from './helpers/naive.js';

const tile: fc.Arbitrary<Tile> = fc.record({
  level: fc.oneof(fc.integer({ min: 0, max: 63 }), fc.constant('entries' as const)),
  index: fc.oneof(
    fc.bigInt({ min: 0n, max: 5000n }),
    fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  ),
  width: fc.integer({ min: 1, max: 256 }),
});

describe('tile paths', () => {
  it('read back every tile they write', () => {
    fc.assert(
      fc.property(tile, (t) => {
        expect(parseTilePath(tilePath(t))).toEqual({ ok: true, value: t });
      }),
      { numRuns: runs(5000) },
    );
  });

  it('read a changed path only when it is the one spelling of the tile it reads', () => {
    fc.assert(
      fc.property(tile, mutation, (t, m) => {
        const changed = mutate(tilePath(t), m);
        if (changed === undefined) return;
        const read = parseTilePath(changed);
        if (read.ok) expect(tilePath(read.value)).toEqual(changed);
      }),
      { numRuns: runs(10000) },
    );
  });

  it('refuse junk, never throwing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^tile\/[0-9a-z./x]{0,30}$/)), (s) => {
        const read = parseTilePath(s);
        if (read.ok) expect(tilePath(read.value)).toEqual(s);
      }),
      { numRuns: runs(10000) },
    );
  });
});

// One log of 70,000 entries; a tree of any smaller size is read from its tiles (a partial tile
// of a smaller size is a prefix of the tile at its index).
const SIZE = 70_000;
const big = buildLog(SIZE);
const leafHashes = big.result.leafHashes;
const roots = new Map<number, Uint8Array>();
const rootAt = (n: number) => {
  let r = roots.get(n);
  if (r === undefined) {
    r = rootOf(leafHashes.slice(0, n), nodeBackend);
    roots.set(n, r);
  }
  return r;
};
const BOUNDARIES = [255, 256, 257, 65_535, 65_536, 65_537];
const size = fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.constantFrom(...BOUNDARIES));
const sizes = fc.tuple(size, size).map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));

function flip(proof: readonly Uint8Array[], at: number): Uint8Array[] {
  return proof.map((h, i) =>
    i === at % proof.length ? h.map((b, j) => (j === 0 ? b ^ 0x80 : b)) : h,
  );
}

describe('proofs from tiles', () => {
  it('verify for random sizes m ≤ n (tile boundaries among them), and every mutated proof is refused', async () => {
    await fc.assert(
      fc.asyncProperty(sizes, fc.nat(), fc.nat(), async ([m, n], pick, change) => {
        const reader = new TileHashReader(
          { size: BigInt(n), root: rootAt(n) },
          prefixFetcher(big.store),
          {
            backend: nodeBackend,
          },
        );
        const index = BigInt(pick % n);
        const inclusion = await reader.inclusionProof(index);
        const leaf = leafHashes[Number(index)]!;
        const good = { leafHash: leaf, index, size: BigInt(n), proof: inclusion, root: rootAt(n) };
        expect(verifyInclusion(good, nodeBackend)).toBeUndefined();
        const badInclusion = [
          { ...good, proof: [...inclusion, leaf] },
          { ...good, leafHash: leafHash(Uint8Array.of(change & 255)) },
        ];
        if (inclusion.length > 0) {
          badInclusion.push(
            { ...good, proof: inclusion.slice(0, -1) },
            { ...good, proof: flip(inclusion, change) },
          );
        }
        if (n > 1) badInclusion.push({ ...good, index: (index + 1n) % BigInt(n) });
        for (const p of badInclusion)
          expect(verifyInclusion(p, nodeBackend)?.reason).toEqual('bad_proof');

        const consistency = await reader.consistencyProof(BigInt(m));
        const c = {
          oldSize: BigInt(m),
          newSize: BigInt(n),
          oldRoot: rootAt(m),
          newRoot: rootAt(n),
          proof: consistency,
        };
        expect(verifyConsistency(c, nodeBackend)).toBeUndefined();
        if (m < n) {
          for (const p of [
            { ...c, proof: flip(consistency, change) },
            { ...c, proof: consistency.slice(0, -1) },
            { ...c, proof: [...consistency, rootAt(m)] },
            { ...c, oldSize: c.oldSize === 1n ? 2n : c.oldSize - 1n },
            { ...c, oldRoot: rootAt(n) },
          ]) {
            expect(verifyConsistency(p, nodeBackend)?.reason).toEqual('bad_proof');
          }
        }
      }),
      { numRuns: runs(60, true) },
    );
  });
});

describe('integration in batches', () => {
  it('gives, for any split, the same full tiles, final partial tiles and root as one batch', () => {
    const all = entries(0, 3000);
    const allLeaves = all.map((e) => leafHash(e, nodeBackend));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 12 }),
        (n, cuts) => {
          const once = integrate(emptyLogState(), all.slice(0, n), nodeBackend);
          const bounds = [0];
          for (const c of cuts) bounds.push(Math.min(n, bounds[bounds.length - 1]! + c));
          bounds.push(n);
          const written: Store = new Map();
          let state = emptyLogState();
          for (let i = 1; i < bounds.length; i++) {
            const r = integrate(state, all.slice(bounds[i - 1], bounds[i]), nodeBackend);
            for (const t of [...r.tiles, ...r.bundles]) {
              // A path is written once, or again with the same bytes.
              const before = written.get(t.path);
              if (before !== undefined) expect(hex(before)).toEqual(hex(t.data));
            }
            store(written, r);
            state = r.state;
            expect(hex(r.root)).toEqual(hex(rootOf(allLeaves.slice(0, bounds[i]), nodeBackend)));
          }
          expect(state.size).toEqual(once.state.size);
          expect(state.partialTiles.map(hex)).toEqual(once.state.partialTiles.map(hex));
          expect(hex(state.partialBundle)).toEqual(hex(once.state.partialBundle));
          // Every tile of the final size, written by the batches, is the one written at once.
          for (const t of [...once.tiles, ...once.bundles])
            expect(hex(written.get(t.path)!)).toEqual(hex(t.data));
          // Every other tile the batches wrote is an earlier size's partial tile: a prefix of the final one.
          for (const [path, data] of written) {
            const read = parseTilePath(path);
            if (!read.ok) throw read.refusal;
            const final = tileOf(BigInt(n), read.value.level, read.value.index);
            expect(final).toBeDefined();
            expect(hex(written.get(tilePath(final!))!.subarray(0, data.length))).toEqual(hex(data));
          }
        },
      ),
      { numRuns: runs(60, true) },
    );
  });
});

describe('integration onto any earlier state', () => {
  it('gives what integrating onto a copy of that state read back from storage gives', () => {
    const all = entries(0, 1500);
    const plain = (s: LogState): LogState => ({
      size: s.size,
      partialTiles: s.partialTiles.map((t) => t.slice()),
      partialBundle: s.partialBundle.slice(),
    });
    const view = (r: Integration) => ({
      root: hex(r.root),
      tiles: r.tiles.map((t) => `${t.path} ${hex(t.data)}`),
      bundles: r.bundles.map((t) => `${t.path} ${hex(t.data)}`),
      partialTiles: r.state.partialTiles.map(hex),
      partialBundle: hex(r.state.partialBundle),
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.nat({ max: 3 }), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }))),
          { minLength: 1, maxLength: 12 },
        ),
        (steps) => {
          const states: LogState[] = [emptyLogState()];
          for (const [pick, count] of steps) {
            // Mostly the latest states, so that branches and empty batches meet.
            const from = states[Math.max(0, states.length - 1 - pick)]!;
            const start = Number(from.size);
            const batch = all.slice(start, Math.min(all.length, start + count));
            const kept = integrate(from, batch, nodeBackend);
            const fresh = integrate(plain(from), batch, nodeBackend);
            expect(view(kept)).toEqual(view(fresh));
            states.push(kept.state);
          }
        },
      ),
      { numRuns: runs(100, true) },
    );
  });
});
