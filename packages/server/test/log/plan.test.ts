// The integrator's arithmetic: from the stored edge and the pending entries, the head, the
// tiles of level ≥ 1 and the checkpoint, the same however the entries are batched.

import { createHash } from 'node:crypto';
import {
  emptyRoot,
  encodeEntry,
  integrate,
  leafHash,
  openCheckpoint,
  readEntryBundle,
  rootOf,
} from '@wai-steering/tlog';
import { nodeBackend } from '@wai-steering/wire/node';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { planIntegration, stateOf, writerBackend, writerHashReady } from '../../src/log/plan.js';
import type { LogHead, LogPlanInput } from '../../src/store/store.js';
import { TEST_ORIGIN, testSigning } from '../helpers/log.js';

const entry = (i: number) =>
  encodeEntry({
    t: BigInt(i),
    digest: new Uint8Array(32).fill(i % 251).map((b, j) => b ^ j ^ (i >> 8)),
  });

/** A store in memory: the head, the entries, the tiles of level ≥ 1 (latest of each index). */
class MemoryLog {
  head: LogHead = { origin: TEST_ORIGIN, size: 0n, root: emptyRoot(), minIndex: 0n };
  entries: Uint8Array[] = [];
  tiles = new Map<string, Uint8Array>();
  checkpointed: bigint | undefined;

  input(batch: Uint8Array[], complete = true): LogPlanInput {
    const size = this.head.size;
    const tiles = new Map<number, Uint8Array>();
    for (let level = 1; size >> BigInt(8 * level) > 0n; level++) {
      const width = Number((size >> BigInt(8 * level)) & 255n);
      const t = this.tiles.get(`${level}/${size >> BigInt(8 * (level + 1))}`);
      if (width > 0) tiles.set(level, t!.subarray(0, 32 * width));
    }
    return {
      head: this.head,
      entries: batch,
      edge: { entries: this.entries.slice(Number(size - (size % 256n))), tiles },
      complete,
      checkpointed: this.checkpointed,
    };
  }

  apply(batch: Uint8Array[], complete = true) {
    const plan = planIntegration(this.input(batch, complete), testSigning(), 42n);
    this.entries.push(...batch);
    for (const t of plan.tiles) this.tiles.set(`${t.level}/${t.index}`, t.data);
    this.head = { ...this.head, size: plan.size, root: plan.root };
    if (plan.checkpoint !== undefined) this.checkpointed = plan.size;
    return plan;
  }
}

describe('planIntegration', () => {
  it('gives the root, tiles and checkpoint of one integration however the entries are batched', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 6 }),
        (sizes) => {
          const log = new MemoryLog();
          let i = 0;
          for (const k of sizes) log.apply(Array.from({ length: k }, () => entry(i++)));
          const all = log.entries;
          const whole = integrate(
            { size: 0n, partialTiles: [], partialBundle: new Uint8Array(0) },
            all,
          );
          expect(Buffer.from(log.head.root).toString('hex')).toBe(
            Buffer.from(whole.root).toString('hex'),
          );
          // The tiles of level ≥ 1 as the whole integration writes them (full, and the partial).
          for (const t of whole.tiles) {
            if (t.tile.level === 0) continue;
            const held = log.tiles.get(`${t.tile.level}/${t.tile.index}`)!;
            expect(Buffer.from(held.subarray(0, t.data.length)).equals(Buffer.from(t.data))).toBe(
              true,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('signs a checkpoint when the batch is complete and the tree is new, not otherwise', () => {
    const log = new MemoryLog();
    // The empty log: a checkpoint of size 0.
    const empty = log.apply([]);
    expect(empty.checkpoint?.issued).toBe(42n);
    const opened = openCheckpoint(empty.checkpoint!.text, {
      origin: TEST_ORIGIN,
      logKeys: [testSigning().key],
    });
    expect(opened.ok && opened.value.checkpoint.size).toBe(0n);
    expect(log.apply([]).checkpoint).toBeUndefined();
    // Incomplete: entries appended, no checkpoint; complete again: one.
    expect(log.apply([entry(1), entry(2)], false).checkpoint).toBeUndefined();
    const next = log.apply([], true);
    expect(next.checkpoint).toBeDefined();
    const o = openCheckpoint(next.checkpoint!.text, {
      origin: TEST_ORIGIN,
      logKeys: [testSigning().key],
    });
    expect(o.ok && o.value.checkpoint.size).toBe(2n);
    expect(o.ok && Buffer.from(o.value.checkpoint.root).toString('hex')).toBe(
      Buffer.from(rootOf([leafHash(entry(1)), leafHash(entry(2))])).toString('hex'),
    );
  });

  it('refuses a stored edge that does not give the stored root (a damaged store)', () => {
    const log = new MemoryLog();
    log.apply(Array.from({ length: 300 }, (_, i) => entry(i)));
    const input = log.input([entry(999)]);
    const damaged = input.edge.entries.map((e, i) => (i === 3 ? entry(12345) : e));
    expect(() =>
      planIntegration({ ...input, edge: { ...input.edge, entries: damaged } }, testSigning(), 1n),
    ).toThrow(/do not give its root at size 300: the store is damaged/);
    expect(() =>
      planIntegration(
        { ...input, edge: { ...input.edge, entries: damaged.slice(1) } },
        testSigning(),
        1n,
      ),
    ).toThrow(/holds 43 entries of its last bundle, not 44/);
  });
});

describe('stateOf', () => {
  it('makes the writer’s state from the edge: leaf hashes, the bundle, the tiles above', () => {
    const entries = Array.from({ length: 5 }, (_, i) => entry(i));
    const state = stateOf(261n, { entries, tiles: new Map([[1, new Uint8Array(32).fill(7)]]) });
    expect(state.partialTiles[0]!.length).toBe(5 * 32);
    expect(
      Buffer.from(state.partialTiles[0]!.subarray(32, 64)).equals(
        Buffer.from(leafHash(entries[1]!)),
      ),
    ).toBe(true);
    expect(state.partialTiles[1]).toEqual(new Uint8Array(32).fill(7));
    const bundle = readEntryBundle(state.partialBundle, 5);
    expect(bundle.ok && bundle.value.length).toBe(5);
  });
});

describe('writerBackend', () => {
  it('hashes as node:crypto does, into a new array each time, once its WebAssembly is instantiated', async () => {
    await writerHashReady;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ minLength: 41, maxLength: 41 }),
          fc.uint8Array({ minLength: 65, maxLength: 65 }),
          fc.uint8Array({ maxLength: 300 }),
        ),
        (data) => {
          const first = writerBackend.sha256(data);
          const expected = new Uint8Array(createHash('sha256').update(data).digest());
          expect(new Uint8Array(first)).toEqual(expected);
          // The next call writes nothing into the array the first one gave.
          writerBackend.sha256(new Uint8Array([1, 2, 3]));
          expect(new Uint8Array(first)).toEqual(expected);
        },
      ),
    );
  });

  it('hashes leaves and nodes with node:crypto where WebAssembly is unavailable', async () => {
    vi.resetModules();
    vi.stubGlobal('WebAssembly', undefined);
    try {
      const plan = await import('../../src/log/plan.js');
      await plan.writerHashReady;
      const entries = new Uint8Array(3 * 40).map((_, i) => i);
      const pairs = new Uint8Array(2 * 64).map((_, i) => 255 - i);
      const leaves = plan.writerBackend.leafHashes(entries, 3, 40);
      const nodes = plan.writerBackend.nodeHashes(pairs, 2);
      const sha = (p: number, m: Uint8Array) =>
        new Uint8Array(createHash('sha256').update(Uint8Array.of(p)).update(m).digest());
      for (let i = 0; i < 3; i++) {
        expect(leaves.subarray(32 * i, 32 * i + 32)).toEqual(
          sha(0, entries.subarray(40 * i, 40 * i + 40)),
        );
      }
      for (let i = 0; i < 2; i++) {
        expect(nodes.subarray(32 * i, 32 * i + 32)).toEqual(
          sha(1, pairs.subarray(64 * i, 64 * i + 64)),
        );
      }
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });

  it('gives the plans node:crypto gives: the same root, tiles, bundles and checkpoint', async () => {
    await writerHashReady;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 4 }),
        (sizes) => {
          const signing = testSigning();
          const plans = [nodeBackend, writerBackend].map((backend) => {
            const log = new MemoryLog();
            const out = [];
            let i = 0;
            for (const n of sizes) {
              const batch = Array.from({ length: n }, () => entry(i++));
              const input = log.input(batch);
              const plan = planIntegration(input, { ...signing, backend }, 42n);
              log.entries.push(...batch);
              for (const t of plan.tiles) log.tiles.set(`${t.level}/${t.index}`, t.data);
              log.head = { ...log.head, size: plan.size, root: plan.root };
              log.checkpointed = plan.size;
              out.push({
                root: new Uint8Array(plan.root),
                tiles: plan.tiles.map((t) => [t.level, t.index, new Uint8Array(t.data)]),
                bundles: plan.bundles.map((b) => [b.index, new Uint8Array(b.data)]),
                checkpoint: plan.checkpoint?.text,
              });
            }
            return out;
          });
          expect(plans[1]).toEqual(plans[0]);
        },
      ),
      { numRuns: 20 },
    );
  });
});
