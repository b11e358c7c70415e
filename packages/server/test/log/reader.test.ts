// The log's reads from the store: the checkpoint read when asked (an answer never goes back behind
// one another instance gave before it), tiles derived (level 0, bundles) or stored (above), a
// partial width the log has passed, pruned tiles, proofs.
import {
  encodeEntry,
  leafHash,
  readEntryBundle,
  tileOf,
  verifyTlogProof,
} from '@wai-steering/tlog';
import { afterEach, describe, expect, it } from 'vitest';
import { LogReader } from '../../src/log/reader.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { integrateAll, TEST_ORIGIN, testSigning } from '../helpers/log.js';
import { decisionAt } from '../store-contract.js';

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function logOf(n: number) {
  const store = new SqliteStore(':memory:');
  stores.push(store);
  await store.beginLog(TEST_ORIGIN);
  const decisions = Array.from({ length: n }, (_, i) => decisionAt(BigInt(1000 + i), i, [[]]));
  for (let i = 0; i < n; i += 100) {
    await store.commit({ records: [], decisions: decisions.slice(i, i + 100) });
  }
  await integrateAll(store);
  return { store, decisions };
}

describe('LogReader', () => {
  it('never answers a checkpoint older than one another instance on the store gave before', async () => {
    // Two readers on one store: two workers of `serve --workers 2`, or two instances behind one
    // balancer. A client asks one, then the other; the second answer is no older than the first.
    const { store } = await logOf(3);
    const a = new LogReader(store, { intervalMs: 60_000 });
    const b = new LogReader(store, { intervalMs: 60_000 });
    expect((await a.checkpoint())?.size).toBe(3n);
    await store.commit({ records: [], decisions: [decisionAt(5000n, 99, [[]])] });
    await integrateAll(store);
    expect((await b.checkpoint())?.size).toBe(4n);
    expect((await a.checkpoint())?.size).toBe(4n);
  });

  it('reads the checkpoint after it is asked: a read begun before is not shared', async () => {
    const { store } = await logOf(3);
    // The store's first read of the latest checkpoint is held before it answers (a read in flight
    // on a connection of PostgreSQL), having read the store as it was.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const slow = Object.assign(Object.create(store) as SqliteStore, {
      latestLogCheckpoint: async () => {
        const c = await store.latestLogCheckpoint();
        if (++reads === 1) await held;
        return c;
      },
    });
    const reader = new LogReader(slow, { intervalMs: 60_000 });
    const first = reader.checkpoint();
    await store.commit({ records: [], decisions: [decisionAt(5000n, 99, [[]])] });
    await integrateAll(store);
    // Asked after the checkpoint of 4 was signed, while the read of the first is in flight.
    const second = reader.checkpoint();
    const third = reader.checkpoint();
    release();
    expect((await first)?.size).toBe(3n);
    expect((await second)?.size).toBe(4n);
    expect((await third)?.size).toBe(4n);
    // The two asked meanwhile share one read, begun once the first was done.
    expect(reads).toBe(2);
  });

  it('derives level 0 and the bundles from the entries, and serves a passed width as a prefix', async () => {
    const { store, decisions } = await logOf(300);
    const reader = new LogReader(store, { intervalMs: 1000 });
    const tile = await reader.tile({ level: 0, index: 0n, width: 256 });
    expect(tile.kind === 'found' && tile.full).toBe(true);
    const leaves = decisions
      .slice(0, 256)
      .map((d, i) => leafHash(encodeEntry({ t: BigInt(1000 + i), digest: d.digest })));
    expect(tile.kind === 'found' && Buffer.from(tile.bytes).equals(Buffer.concat(leaves))).toBe(
      true,
    );
    // The partial tile of size 100 (a checkpoint's), from the full one.
    const prefix = await reader.tile({ level: 0, index: 0n, width: 100 });
    expect(
      prefix.kind === 'found' &&
        Buffer.from(prefix.bytes).equals(Buffer.concat(leaves.slice(0, 100))),
    ).toBe(true);
    const bundle = await reader.tile({ level: 'entries', index: 1n, width: 44 });
    expect(bundle.kind).toBe('found');
    if (bundle.kind === 'found') {
      const read = readEntryBundle(bundle.bytes, 44);
      expect(
        read.ok &&
          Buffer.from(read.value[0]!).equals(
            Buffer.from(encodeEntry({ t: 1256n, digest: decisions[256]!.digest })),
          ),
      ).toBe(true);
    }
    // A width the log has not reached, a tile beyond it: absent.
    expect(await reader.tile({ level: 0, index: 1n, width: 45 })).toEqual({ kind: 'absent' });
    expect(await reader.tile({ level: 0, index: 2n, width: 1 })).toEqual({ kind: 'absent' });
    expect(await reader.tile({ level: 1, index: 0n, width: 2 })).toEqual({ kind: 'absent' });
    expect((await reader.tile({ level: 1, index: 0n, width: 1 })).kind).toBe('found');
    expect(tileOf(300n, 1, 0n)?.width).toBe(1);
  });

  it('answers pruned for a tile ending at or below the minimum index', async () => {
    const { store } = await logOf(600);
    // Two checkpoints: 600 (issued now), then one more entry; prune what was issued before.
    await store.commit({ records: [], decisions: [decisionAt(9999n, 999, [[]])] });
    await integrateAll(store, testSigning(), { issued: () => 1n << 62n });
    await store.pruneLog(1n << 61n);
    expect((await store.logHead())?.minIndex).toBe(600n);
    const reader = new LogReader(store, { intervalMs: 1000 });
    expect(await reader.tile({ level: 0, index: 1n, width: 256 })).toEqual({
      kind: 'pruned',
      minIndex: 600n,
    });
    expect(await reader.tile({ level: 'entries', index: 0n, width: 256 })).toEqual({
      kind: 'pruned',
      minIndex: 600n,
    });
    // The tile holding the minimum index is kept, and so is level 1.
    expect((await reader.tile({ level: 0, index: 2n, width: 89 })).kind).toBe('found');
    expect((await reader.tile({ level: 1, index: 0n, width: 2 })).kind).toBe('found');
  });

  it('proves an entry against the latest checkpoint; pending until one holds it; absent for others', async () => {
    const { store, decisions } = await logOf(10);
    const reader = new LogReader(store, { intervalMs: 60_000 });
    const p = await reader.proof(decisions[7]!.digest);
    expect(p.kind).toBe('proof');
    if (p.kind === 'proof') {
      const verified = verifyTlogProof(p.text, {
        entry: encodeEntry({ t: 1007n, digest: decisions[7]!.digest }),
        origin: TEST_ORIGIN,
        logKeys: [testSigning().key],
      });
      expect(verified.ok && verified.value.index).toBe(7n);
    }
    // Committed, not integrated: pending.
    const late = decisionAt(2000n, 50, [[]]);
    await store.commit({ records: [], decisions: [late] });
    expect(await reader.proof(late.digest)).toEqual({ kind: 'pending', retryAfterS: 60 });
    // Integrated: the reader reads a fresher checkpoint than its cached one for it.
    await integrateAll(store);
    expect((await reader.proof(late.digest)).kind).toBe('proof');
    expect(await reader.proof(new Uint8Array(32).fill(1))).toEqual({ kind: 'absent' });
  });
});
