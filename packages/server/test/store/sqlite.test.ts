// The embedded store: the stores' contract, and what SQLite adds (compact decisions, the WAL).
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { DecisionFields } from '@wai-steering/wire';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.js';
import { integrateAll, TEST_ORIGIN } from '../helpers/log.js';
import { tempDir } from '../helpers/setup.js';
import { fieldsArb, sign, signer } from '../store-contract.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

import { altered, keyOf, storeContract } from '../store-contract.js';

storeContract('SqliteStore', async () => {
  const t = tempDir('wai-sqlite-contract-');
  const path = `${t.dir}/s.sqlite`;
  return {
    store: new SqliteStore(path),
    reopen: async () => new SqliteStore(path),
    dispose: async () => t.remove(),
    damage: async (digest) => {
      // Another connection to the file, as a tool would: the change passes quick_check.
      const db = new Database(path);
      const rows = db
        .prepare('SELECT id, tail FROM decisions WHERE key = ?')
        .all(keyOf(digest)) as {
        id: number;
        tail: Buffer;
      }[];
      for (const r of rows) {
        db.prepare('UPDATE decisions SET tail = ? WHERE id = ?').run(altered(r.tail), r.id);
      }
      expect(db.pragma('quick_check', { simple: true })).toBe('ok');
      db.close();
    },
  };
});

describe('SqliteStore', () => {
  it('rebuilds every decision byte for byte, across evidence sets and a reopen', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/s.sqlite`;
    let store = new SqliteStore(path);
    const all: { bytes: Uint8Array; digest: Uint8Array }[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fieldsArb, { minLength: 1, maxLength: 5 }),
        fc.nat(20),
        async (fs, repeat) => {
          const batch = [];
          for (const f of fs) {
            batch.push(sign(f as DecisionFields));
            // Decisions of one window: the same evidence, other tails.
            for (let i = 0; i < repeat % 4; i++) {
              batch.push(
                sign({
                  ...(f as DecisionFields),
                  t: BigInt(i),
                  session: new Uint8Array(16).fill(i),
                }),
              );
            }
          }
          await store.commit({ records: [], decisions: batch });
          all.push(...batch);
        },
      ),
      { numRuns: 40 },
    );
    await store.close();
    store = new SqliteStore(path);
    for (const d of all) {
      const got = await store.getDecision(d.digest);
      expect(got).toBeDefined();
      expect(Buffer.from(got!).equals(Buffer.from(d.bytes))).toBe(true);
    }
    const wrong = all[0]!.digest.slice();
    wrong[31]! ^= 1;
    expect(await store.getDecision(wrong)).toBeUndefined();
    await store.close();
  });

  it('migrates a store of schema 1: each decision’s t read from its tail, and every decision logged in the order stored', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/s.sqlite`;
    let store = new SqliteStore(path);
    const ts = [5n, 3n, 9n, 3n, 1n, 7n];
    const made = ts.map((t, i) =>
      sign({ ...(fc.sample(fieldsArb, { seed: i, numRuns: 1 })[0] as DecisionFields), t }),
    );
    await store.commit({ records: [], decisions: made.slice(0, 4) });
    await store.commit({ records: [], decisions: made.slice(4) });
    await store.close();
    // The schema of version 1: decisions without `t`, no index on it, no log.
    const db = new Database(path);
    db.exec(`
      DROP INDEX decisions_t;
      CREATE TABLE old (id INTEGER PRIMARY KEY, key INTEGER NOT NULL, set_id INTEGER NOT NULL,
        tail BLOB NOT NULL);
      INSERT INTO old SELECT id, key, set_id, tail FROM decisions;
      DROP TABLE decisions;
      ALTER TABLE old RENAME TO decisions;
      CREATE INDEX decisions_key ON decisions (key);
      DROP TABLE log_pending; DROP TABLE log_head; DROP TABLE log_lease; DROP TABLE log_bundles;
      DROP TABLE log_keys; DROP TABLE log_keys_more; DROP TABLE log_tiles; DROP TABLE log_checkpoints;
      UPDATE meta SET v = 1 WHERE k = 'schema';
    `);
    db.close();
    store = new SqliteStore(path);
    const page = await store.listDecisions(0n, 1n << 62n, null, 100);
    const order = ts.map((t, i) => ({ t, i })).sort((a, b) => Number(a.t - b.t) || a.i - b.i);
    expect(page.decisions.map((d) => Buffer.from(d.bytes).toString('hex'))).toEqual(
      order.map(({ i }) => Buffer.from(made[i]!.bytes).toString('hex')),
    );
    await store.beginLog(TEST_ORIGIN);
    await integrateAll(store);
    expect(
      (await store.logEntries(0n, 10n)).map((e) => Buffer.from(e.digest).toString('hex')),
    ).toEqual(made.map((d) => Buffer.from(d.digest).toString('hex')));
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT v FROM meta WHERE k = 'schema'").pluck().get()).toBe(2);
    check.close();
  });

  it('checkpoints the WAL in the background', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/c.sqlite`;
    const store = new SqliteStore(path);
    const before = statSync(path).size;
    const set = new Uint8Array(97 + 35);
    set[96] = 1;
    for (let k = 0; k < 50; k++) {
      const decisions = Array.from({ length: 100 }, (_, i) => {
        const tail = new Uint8Array(47 + 5 + 7 + 64);
        new DataView(tail.buffer).setUint32(8, k * 100 + i, true);
        return { digest: createHash('sha256').update(tail).digest(), set, tail };
      });
      await store.commit({ records: [], decisions });
    }
    // The writer never checkpoints (wal_autocheckpoint = 0): the worker copies the pages over.
    let size = statSync(path).size;
    // Every 250 ms, or later on a busy machine: a generous ceiling.
    for (let i = 0; i < 600 && size <= before + 100_000; i++) {
      await new Promise((done) => setTimeout(done, 100));
      size = statSync(path).size;
    }
    expect(size).toBeGreaterThan(before + 100_000);
    expect((await store.stats()).decisions).toBe(5000);
    await store.close();
  });

  it('commits while another connection holds a read transaction open', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/r.sqlite`;
    // The checkpointer restarts the WAL past 64 frames; a restart holds the write lock while it
    // waits for the readers, and a reader that holds an old snapshot (a long export, here another
    // connection) must not make the commits wait for it.
    const store = new SqliteStore(path, { walRestartFrames: 64 });
    const set = new Uint8Array(97 + 35);
    set[96] = 1;
    let n = 0;
    const commit = async (): Promise<void> => {
      // An event-loop turn apart, as a server's group commits are.
      await new Promise((turn) => setImmediate(turn));
      const decisions = Array.from({ length: 25 }, () => {
        const tail = new Uint8Array(47 + 5 + 7 + 64);
        new DataView(tail.buffer).setUint32(8, n++, true);
        return { digest: createHash('sha256').update(tail).digest(), set, tail };
      });
      await store.commit({ records: [], decisions });
    };
    // Until the checkpointer (a worker thread, started with the store) has copied pages into the
    // database file: it is running.
    const empty = statSync(path).size;
    for (let i = 0; i < 100_000 && statSync(path).size === empty; i++) await commit();
    const reader = new Database(path, { readonly: true });
    reader.prepare('BEGIN').run();
    const seen = reader.prepare('SELECT count(*) FROM decisions').pluck().get();
    expect(seen).toBe(n);
    const walSize = (): number => statSync(`${path}-wal`).size;
    // Until the WAL, which the reader keeps from being restarted, has grown by 64 MiB (a second or
    // more of commits, during which the checkpointer runs every 250 ms, past the 64 frames each
    // time): a commit that waited for the reader would fail after 5 s.
    const from = walSize();
    while (walSize() < from + 64 * 1024 * 1024) await commit();
    expect(reader.prepare('SELECT count(*) FROM decisions').pluck().get()).toBe(seen);
    reader.prepare('COMMIT').run();
    reader.close();
    expect((await store.stats()).decisions).toBe(n);
    await store.close();
  });

  it('stores a decision of 36 named records in far fewer bytes than the record', async () => {
    const store = new SqliteStore(':memory:');
    cleanup.push(() => store.close());
    const evidence = Array.from({ length: 12 }, (_, i) => new Uint8Array(32).fill(i + 1));
    const base: DecisionFields = {
      room: new Uint8Array(32).fill(9),
      signer,
      policy: new Uint8Array(32).fill(8),
      t: 1_800_000_000_000_000n,
      session: new Uint8Array(16),
      draw: 5,
      protocol: 1,
      report: { present: 3, pathway: 0, throughput: 5_000_000n, buffer: 0n },
      pathways: [0, 1, 2].map((p) => ({
        load: 0,
        limits: 7,
        status: 0,
        class: 4,
        joules: 123456789n,
        delivery: 987654321n,
        evidence: evidence.map((e) => e.map((x) => x + 16 * p)),
      })),
      ttl: 10,
      reason: 5,
      priority: [0, 1, 2],
    };
    const before = (await store.stats()).bytes;
    const n = 5000;
    let size = 0;
    for (let k = 0; k < n / 100; k++) {
      const batch = [];
      for (let i = 0; i < 100; i++) {
        const session = new Uint8Array(16);
        new DataView(session.buffer).setUint32(0, k * 100 + i, true);
        const d = sign({ ...base, t: base.t + BigInt(k * 100 + i), session });
        size = d.bytes.length;
        batch.push(d);
      }
      await store.commit({ records: [], decisions: batch });
    }
    const per = ((await store.stats()).bytes - before) / n;
    expect(size).toBeGreaterThan(1400);
    // Goal: the stored size does not grow with the records named (36 × 32 bytes here).
    expect(per).toBeLessThan(300);
    expect((await store.stats()).sets).toBe(1);
  });
});
