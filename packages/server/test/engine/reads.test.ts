// The engine's reads by digest: what the store holds, checked against its digest (C1); a row that
// does not rebuild its digest is `store_damaged`, counted once per row; a store that does not
// answer is `store_unavailable`, told once and cleared by the next read that works.
import { sha256 } from '@wai-steering/wire';
import { nodeBackend } from '@wai-steering/wire/node';
import { afterEach, describe, expect, it } from 'vitest';
import { found, StoreReads, storeUnavailable } from '../../src/engine/reads.js';
import { Health } from '../../src/health.js';
import { Metrics } from '../../src/metrics.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => {});
});

function open() {
  const store = new SqliteStore(':memory:');
  stores.push(store);
  const lines: string[] = [];
  const health = new Health({ log: (line) => lines.push(line) });
  const metrics = new Metrics();
  const reads = new StoreReads({ store, backend: nodeBackend, health, metrics });
  return { store, health, metrics, reads, lines };
}

/** Bytes shaped as a record of the family: a body, then a 64-byte signature; its C1 digest. */
function recordLike(fill: number): { bytes: Uint8Array; digest: Uint8Array } {
  const bytes = new Uint8Array(100).fill(fill);
  return { bytes, digest: sha256(bytes.subarray(0, 36), nodeBackend) };
}

describe('StoreReads', () => {
  it('answers found or absent, the kinds of `found`', async () => {
    const { store, reads } = open();
    const { bytes, digest } = recordLike(7);
    await store.putBlob('policy', digest, bytes);
    expect(await reads.policy(digest)).toEqual({ kind: 'found', bytes });
    expect(await reads.policy(new Uint8Array(32))).toEqual({ kind: 'absent' });
    expect(found(undefined)).toEqual({ kind: 'absent' });
    expect(found(bytes)).toEqual({ kind: 'found', bytes });
  });

  it('checks bytes against their digest: store_damaged, counted and logged once per row', async () => {
    const { store, reads, metrics, health } = open();
    const { digest } = recordLike(7);
    // Kept under the digest of other bytes: the row does not rebuild it.
    await store.putBlob('policy', digest, recordLike(8).bytes);
    expect(await reads.policy(digest)).toEqual({ kind: 'store_damaged', what: 'policy' });
    expect(await reads.policy(digest)).toEqual({ kind: 'store_damaged', what: 'policy' });
    expect(metrics.storeDamaged.get({ what: 'policy' })).toEqual(1);
    expect(health.has('store_damaged')).toEqual(true);
    // Unchecked, the bytes are given as kept.
    expect(await reads.policy(digest, false)).toEqual({
      kind: 'found',
      bytes: recordLike(8).bytes,
    });
  });

  it('answers store_unavailable while the store does not answer, and clears it after', async () => {
    const { store, reads, metrics, health } = open();
    const digest = new Uint8Array(32);
    await store.close();
    const down = storeUnavailable('query', 'the store does not answer for now');
    expect(await reads.record(digest)).toEqual(down);
    expect(await reads.decision(digest)).toEqual(down);
    expect(await reads.listDecisions(0n, 10n, null, 10)).toEqual(down);
    expect(health.has('store_queries')).toEqual(true);
    expect(metrics.storeErrors.get({ op: 'query' })).toEqual(3);
    const again = open();
    expect(await again.reads.record(digest)).toEqual({ kind: 'absent' });
    expect(again.health.has('store_queries')).toEqual(false);
  });

  it('lists decisions a page at a time', async () => {
    const { reads } = open();
    expect(await reads.listDecisions(0n, 10n, null, 10)).toMatchObject({ kind: 'page' });
  });

  it('answers store_unavailable (file) while the store file is gone, nothing otherwise', () => {
    const { reads, health } = open();
    expect(reads.fileGone()).toEqual(undefined);
    health.fail('store', 'the store file was removed');
    expect(reads.fileGone()).toEqual(
      storeUnavailable('file', 'the store file was removed or replaced'),
    );
  });
});
