// The embedded store: the stores' contract, and what SQLite adds (compact decisions, the WAL).
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { DecisionFields } from '@wai-steering/wire';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { integrateAll, TEST_ORIGIN } from '../helpers/log.js';
import { tempDir } from '../helpers/setup.js';
import { fieldsArb, sign, signer } from '../store-contract.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

import { altered, keyOf, storeContract } from '../store-contract.js';
import { readContract } from '../store-contract-read.js';

/** `n` signed decisions drawn from `seed`, their t from `seed * 1000` on. */
const batchOf = (seed: number, n: number) =>
  fc
    .sample(fieldsArb, { seed, numRuns: n })
    .map((f, i) => sign({ ...(f as DecisionFields), t: BigInt(seed * 1000 + i) }));

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

readContract('SqliteStore', async (instance) => {
  const t = tempDir('wai-sqlite-read-');
  const path = `${t.dir}/s.sqlite`;
  return {
    store: new SqliteStore(path, instance === undefined ? {} : { instance }),
    reopen: async (again) => new SqliteStore(path, again === undefined ? {} : { instance: again }),
    dispose: async () => t.remove(),
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
    expect(check.prepare("SELECT v FROM meta WHERE k = 'schema'").pluck().get()).toBe(3);
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

  it('waits for another connection’s write lock from the event loop, then writes the batch', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/w.sqlite`;
    const store = new SqliteStore(path);
    const [a, b, c] = [batchOf(1, 5), batchOf(2, 5), batchOf(3, 5)];
    await store.commit({ records: [], decisions: a });
    // Another worker's transaction holds the write lock: the commit is refused at once and tried
    // again from the event loop, which goes on meanwhile.
    const other = new Database(path);
    other.prepare('BEGIN IMMEDIATE').run();
    let written = false;
    const pending = store.commit({ records: [], decisions: b }).then(() => {
      written = true;
    });
    for (let i = 0; i < 5; i++) await new Promise((turn) => setTimeout(turn, 2));
    expect(written).toBe(false);
    other.prepare('COMMIT').run();
    other.close();
    await pending;
    await store.commit({ records: [], decisions: c });
    for (const d of [...a, ...b, ...c]) {
      const got = await store.getDecision(d.digest);
      expect(got === undefined ? 'absent' : Buffer.from(got).equals(Buffer.from(d.bytes))).toBe(
        true,
      );
    }
    await store.close();
  });

  it('integrates the log after another connection’s write lock, waiting from the event loop', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/l.sqlite`;
    const store = new SqliteStore(path);
    await store.beginLog(TEST_ORIGIN);
    await store.commit({ records: [], decisions: batchOf(1, 5) });
    // Another worker's transaction holds the write lock: the integration (and the lease) is
    // refused at once and asked again from the event loop, whose timers run meanwhile; before,
    // SQLite's busy handler slept on the event loop until the lock was free.
    const other = new Database(path);
    other.prepare('BEGIN IMMEDIATE').run();
    let done = false;
    const lease = store.takeLogLease('a:1:aa', 60_000);
    const integrated = integrateAll(store).then((signed) => {
      done = true;
      return signed;
    });
    let turns = 0;
    for (let i = 0; i < 5; i++) {
      await new Promise((turn) => setTimeout(turn, 2));
      turns++;
    }
    expect([turns, done]).toEqual([5, false]);
    other.prepare('COMMIT').run();
    other.close();
    expect(await lease).toBe(true);
    const signed = await integrated;
    expect(signed.at(-1)?.size).toBe(5n);
    await store.close();
  });

  it('prunes and prunes the log after another connection’s write lock, waiting from the event loop', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/p.sqlite`;
    const store = new SqliteStore(path);
    await store.beginLog(TEST_ORIGIN);
    await store.commit({ records: [], decisions: batchOf(1, 5) });
    // Retention and the log's pruning run in every worker once a minute: while another worker
    // holds the write lock, each is refused at once and asked again from the event loop.
    const other = new Database(path);
    other.prepare('BEGIN IMMEDIATE').run();
    let done = 0;
    const pruned = store.prune(0n, 0n).then((r) => {
      done++;
      return r;
    });
    const prunedLog = store.pruneLog(0n).then((r) => {
      done++;
      return r;
    });
    let turns = 0;
    for (let i = 0; i < 5; i++) {
      await new Promise((turn) => setTimeout(turn, 2));
      turns++;
    }
    expect([turns, done]).toEqual([5, 0]);
    other.prepare('COMMIT').run();
    other.close();
    expect((await pruned).decisions).toBe(0);
    expect((await prunedLog).entries).toBe(0);
    expect(done).toBe(2);
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

describe('SqliteStore: the decisions’ keys, merged in batches', () => {
  const open = (options: { keyMergeRows?: number } = {}) => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/s.sqlite`;
    return { path, store: new SqliteStore(path, options) };
  };
  /** What another connection sees: the keys merged, `keys_through`, the decisions held. */
  const inside = (path: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return {
        merged: db.prepare('SELECT count(*) FROM decision_keys').pluck().get() as number,
        through: db.prepare("SELECT v FROM meta WHERE k = 'keys_through'").pluck().get() as number,
        decisions: db.prepare('SELECT count(*) FROM decisions').pluck().get() as number,
        maxId: db.prepare('SELECT coalesce(max(id), 0) FROM decisions').pluck().get() as number,
        index: db
          .prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'decisions_key'",
          )
          .pluck()
          .get() as number,
        schema: db.prepare("SELECT v FROM meta WHERE k = 'schema'").pluck().get() as number,
      };
    } finally {
      db.close();
    }
  };
  const expectFound = async (
    store: SqliteStore,
    ds: { bytes: Uint8Array; digest: Uint8Array }[],
  ) => {
    for (const d of ds) {
      const got = await store.getDecision(d.digest);
      expect(got === undefined ? 'absent' : Buffer.from(got).equals(Buffer.from(d.bytes))).toBe(
        true,
      );
    }
  };

  it('finds every decision, merged or not yet, and merges once past the threshold', async () => {
    const { path, store } = open({ keyMergeRows: 16 });
    const all: { bytes: Uint8Array; digest: Uint8Array }[] = [];
    let merges = 0;
    for (let k = 1; k <= 12; k++) {
      const batch = batchOf(k, 1 + (k % 7));
      await store.commit({ records: [], decisions: batch });
      all.push(...batch);
      // Before the merge (if one started) and after it.
      await expectFound(store, all);
      await store.keyMergeSettled();
      await expectFound(store, all);
      const s = inside(path);
      expect(s.decisions).toBe(all.length);
      // Every decision through keys_through is merged, and the rest are fewer than a merge's rows.
      expect(s.merged).toBe(s.through);
      expect(s.maxId - s.through).toBeLessThan(16);
      if (s.through > 0) merges++;
    }
    expect(merges).toBeGreaterThan(0);
    const absent = all[0]!.digest.slice();
    absent[31]! ^= 1;
    expect(await store.getDecision(absent)).toBeUndefined();
    await store.close();
  });

  it('answers a merged decision altered inside the database as damage', async () => {
    const { path, store } = open({ keyMergeRows: 1 << 30 });
    const batch = batchOf(7, 6);
    await store.commit({ records: [], decisions: batch });
    await store.keyMergeSettled(true);
    expect(inside(path).through).toBe(6);
    const db = new Database(path);
    const row = db
      .prepare('SELECT id, tail FROM decisions WHERE key = ?')
      .get(keyOf(batch[2]!.digest)) as { id: number; tail: Buffer };
    db.prepare('UPDATE decisions SET tail = ? WHERE id = ?').run(altered(row.tail), row.id);
    db.close();
    await expect(store.getDecision(batch[2]!.digest)).rejects.toMatchObject({
      name: 'StoreDamagedError',
    });
    await expectFound(store, [...batch.slice(0, 2), ...batch.slice(3)]);
    await store.close();
  });

  it('starts the keys again after a prune of every decision (row ids start again from 1)', async () => {
    const { path, store } = open({ keyMergeRows: 4 });
    const old = batchOf(3, 10);
    await store.commit({ records: [], decisions: old });
    await store.keyMergeSettled();
    expect(inside(path).through).toBe(10);
    await store.prune(0n, 1n << 62n);
    expect(inside(path)).toMatchObject({ decisions: 0, merged: 0, through: 0 });
    const fresh = batchOf(4, 3);
    await store.commit({ records: [], decisions: fresh });
    await expectFound(store, fresh);
    for (const d of old) expect(await store.getDecision(d.digest)).toBeUndefined();
    await store.commit({ records: [], decisions: batchOf(5, 3) });
    await store.keyMergeSettled();
    await expectFound(store, [...fresh, ...batchOf(5, 3)]);
    expect(inside(path).through).toBe(6);
    await store.close();
  });

  it('drops the keys of the decisions a prune drops, and keeps the others', async () => {
    const { path, store } = open({ keyMergeRows: 4 });
    const early = batchOf(1, 5);
    const late = batchOf(9, 5);
    await store.commit({ records: [], decisions: early });
    await store.commit({ records: [], decisions: late });
    await store.keyMergeSettled();
    expect(inside(path)).toMatchObject({ merged: 10, through: 10 });
    // The early ones (t 1000…) go, the late ones (t 9000…) stay.
    await store.prune(0n, 5000n);
    const s = inside(path);
    expect(s.decisions).toBe(5);
    expect(s.merged).toBe(5);
    for (const d of early) expect(await store.getDecision(d.digest)).toBeUndefined();
    await expectFound(store, late);
    await store.close();
  });

  it('merges one process at a time: while another’s merge is claimed, the keys wait for it', async () => {
    const { path, store } = open({ keyMergeRows: 4 });
    // Another process's merge, under way for a minute (its claim in `meta`).
    const other = new Database(path);
    const claim = (until: number) =>
      other.prepare("UPDATE meta SET v = ? WHERE k = 'keys_merging'").run(until);
    claim(Date.now() + 60_000);
    const first = batchOf(21, 10);
    await store.commit({ records: [], decisions: first });
    await store.keyMergeSettled();
    expect(inside(path)).toMatchObject({ through: 0, merged: 0 });
    // Found meanwhile, through the decisions after `keys_through`.
    await expectFound(store, first);
    // The other's merge ends (its claim given up): the next one past the threshold merges.
    claim(0);
    const second = batchOf(22, 10);
    const more: { bytes: Uint8Array; digest: Uint8Array }[] = [];
    for (let seed = 23; ; seed++) {
      const one = batchOf(seed, 1);
      more.push(...one);
      await store.commit({ records: [], decisions: one });
      await store.keyMergeSettled();
      if (inside(path).through > 0) break;
      // It looks again 100 ms after it found the claim.
      await new Promise((later) => setTimeout(later, 20));
    }
    await store.commit({ records: [], decisions: second });
    await store.keyMergeSettled();
    const s = inside(path);
    expect(s.through).toBeGreaterThanOrEqual(10);
    expect(other.prepare("SELECT v FROM meta WHERE k = 'keys_merging'").pluck().get()).toBe(0);
    await expectFound(store, [...first, ...more, ...second]);
    other.close();
    await store.close();
  });

  it('two connections to one file (workers) find each other’s decisions, merged by either', async () => {
    const { path, store: a } = open({ keyMergeRows: 8 });
    const b = new SqliteStore(path, { keyMergeRows: 8 });
    const all: { bytes: Uint8Array; digest: Uint8Array }[] = [];
    for (let k = 1; k <= 10; k++) {
      const batch = batchOf(100 + k, 3);
      await (k % 2 === 0 ? a : b).commit({ records: [], decisions: batch });
      all.push(...batch);
      await Promise.all([a.keyMergeSettled(), b.keyMergeSettled()]);
      await expectFound(a, all);
      await expectFound(b, all);
    }
    const s = inside(path);
    expect(s.merged).toBe(s.through);
    expect(s.through).toBeGreaterThan(0);
    await b.close();
    await a.close();
  });

  it('migrates a store of schema 2: its index on the key becomes decision_keys', async () => {
    const { path, store } = open();
    const batch = batchOf(9, 9);
    await store.commit({ records: [], decisions: batch });
    await store.close();
    // Version 2: the key indexed at commit, no decision_keys, no keys_through.
    const db = new Database(path);
    db.exec(`
      DROP TABLE decision_keys;
      CREATE INDEX decisions_key ON decisions (key);
      DELETE FROM meta WHERE k = 'keys_through';
      UPDATE meta SET v = 2 WHERE k = 'schema';
    `);
    db.close();
    const again = new SqliteStore(path, { keyMergeRows: 4 });
    expect(inside(path)).toMatchObject({ schema: 3, index: 0, merged: 9, through: 9 });
    await expectFound(again, batch);
    const more = batchOf(10, 5);
    await again.commit({ records: [], decisions: more });
    await again.keyMergeSettled();
    await expectFound(again, [...batch, ...more]);
    expect(inside(path)).toMatchObject({ merged: 14, through: 14 });
    await again.close();
  });
});

describe('the log lease of a process that is gone', () => {
  /** The pid of a process of this machine that ran and has exited. */
  async function deadPid(): Promise<number> {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => child.once('exit', r));
    return child.pid!;
  }

  it('is taken at once from a holder of this machine whose process has exited, never from one that runs', async () => {
    const { hostname } = await import('node:os');
    const { join } = await import('node:path');
    const t = tempDir('wai-sqlite-lease-');
    const store = new SqliteStore(join(t.dir, 's.sqlite'));
    try {
      // A live holder (this process, as another worker would be): its lease holds to its expiry.
      expect(await store.takeLogLease(`${hostname()}:${process.pid}:aa`, 60_000)).toBe(true);
      expect(await store.takeLogLease(`${hostname()}:1:bb`, 60_000)).toBe(false);
      await store.releaseLogLease(`${hostname()}:${process.pid}:aa`);
      // A holder killed (its process exited): the next taker has the lease before its expiry.
      const gone = `${hostname()}:${await deadPid()}:cc`;
      expect(await store.takeLogLease(gone, 60_000)).toBe(true);
      expect(await store.takeLogLease(`${hostname()}:${process.pid}:dd`, 60_000)).toBe(true);
      // A holder of another machine is never presumed gone.
      await store.releaseLogLease(`${hostname()}:${process.pid}:dd`);
      expect(await store.takeLogLease(`elsewhere.invalid:${await deadPid()}:ee`, 60_000)).toBe(
        true,
      );
      expect(await store.takeLogLease(`${hostname()}:${process.pid}:ff`, 60_000)).toBe(false);
    } finally {
      await store.close();
      t.remove();
    }
  });
});
