import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreFeed } from '../../../src/instances/feed.js';
import { PgStore } from '../../../src/store/postgres/index.js';
import type { StoredRecord } from '../../../src/store/store.js';
import { type PgCluster, startPostgres } from '../../helpers/postgres.js';
import { fakeRecord } from '../../store-contract.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

const hex = (r: StoredRecord) => Buffer.from(r.digest).toString('hex');

describe('StoreFeed', () => {
  it('passes on what another instance committed: by notification, and by the catch-up alone', async () => {
    const url = await cluster.createDatabase('feed');
    const a = await PgStore.open(url);
    const b = await PgStore.open(url);
    const seen = new Set<string>();
    let start = 0n;
    const feed = await StoreFeed.start(b, {
      windowStart: () => start,
      onRecord: (r) => seen.add(hex(r)),
    });
    try {
      const r1 = fakeRecord(10n, 20n, 1);
      await a.commit({ records: [r1], decisions: [] });
      for (let i = 0; i < 6000 && !seen.has(hex(r1)); i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(seen.has(hex(r1))).toBe(true);
      // Notifications lost: the feed stops listening; the window move's catch-up still reads.
      feed.stop();
      start = 15n;
      const r2 = fakeRecord(30n, 40n, 2);
      const old = fakeRecord(0n, 15n, 3);
      await a.commit({ records: [r2, old], decisions: [] });
      expect(seen.has(hex(r2))).toBe(false);
      const move = feed.beforeWindow(15n);
      expect(move).toBeDefined();
      await move;
      expect(feed.beforeWindow(15n)).toBeUndefined();
      expect(seen.has(hex(r2))).toBe(true);
      // A record no current window can name is not read.
      expect(seen.has(hex(old))).toBe(false);
    } finally {
      feed.stop();
      await a.close();
      await b.close();
    }
  });
});
