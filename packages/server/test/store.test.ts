import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { DecisionFields } from '@wai-steering/wire';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { joinDecision, splitAgainst, splitDecision } from '../src/store/compact.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { tempDir } from './helpers/setup.js';
import { fieldsArb, sign, signer } from './store-contract.js';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

describe('compact decisions', () => {
  it('split then join gives back the exact bytes', () => {
    fc.assert(
      fc.property(fieldsArb, (f) => {
        const { bytes: b } = sign(f as DecisionFields);
        const { set, tail } = splitDecision(b);
        expect(Buffer.from(joinDecision(set, tail)).equals(Buffer.from(b))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts the tail in place and tells whether the set is the current one', () => {
    fc.assert(
      fc.property(fieldsArb, fieldsArb, (f, g) => {
        const a = sign(f as DecisionFields).bytes;
        const b = sign(g as DecisionFields).bytes;
        const scratch = new Uint8Array(a.length + b.length);
        const sa = splitDecision(a);
        const same = splitAgainst(a, sa.set, scratch);
        expect(same.set).toBeUndefined();
        expect(Buffer.from(scratch.subarray(0, same.tailLength)).equals(Buffer.from(sa.tail))).toBe(
          true,
        );
        const other = splitAgainst(b, sa.set, scratch);
        const sb = splitDecision(b);
        expect(
          Buffer.from(scratch.subarray(0, other.tailLength)).equals(Buffer.from(sb.tail)),
        ).toBe(true);
        const equalSets = Buffer.from(sa.set).equals(Buffer.from(sb.set));
        expect(other.set === undefined).toBe(equalSets);
        if (other.set !== undefined)
          expect(Buffer.from(other.set).equals(Buffer.from(sb.set))).toBe(true);
        expect(splitAgainst(b, undefined, scratch).set).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it('refuses bytes that are not a decision', () => {
    expect(() => splitDecision(new Uint8Array(10))).toThrow(RangeError);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (b) => {
        try {
          const { set, tail } = splitDecision(b);
          expect(Buffer.from(joinDecision(set, tail)).equals(Buffer.from(b))).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(RangeError);
        }
      }),
    );
  });
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

  it('migrates a store of schema 1: each decision’s t read from its tail, listed by time', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const path = `${dir}/s.sqlite`;
    let store = new SqliteStore(path);
    const ts = [5n, 3n, 9n, 3n, 1n, 7n];
    const made = ts.map((t, i) =>
      sign({ ...(fc.sample(fieldsArb, { seed: i, numRuns: 1 })[0] as DecisionFields), t }),
    );
    await store.commit({ records: [], decisions: made });
    await store.close();
    // The schema of version 1: decisions without `t`, and no index on it.
    const db = new Database(path);
    db.exec(`
      DROP INDEX decisions_t;
      CREATE TABLE old (id INTEGER PRIMARY KEY, key INTEGER NOT NULL, set_id INTEGER NOT NULL,
        tail BLOB NOT NULL);
      INSERT INTO old SELECT id, key, set_id, tail FROM decisions;
      DROP TABLE decisions;
      ALTER TABLE old RENAME TO decisions;
      CREATE INDEX decisions_key ON decisions (key);
      UPDATE meta SET v = 1 WHERE k = 'schema';
    `);
    db.close();
    store = new SqliteStore(path);
    const page = await store.listDecisions(0n, 1n << 62n, null, 100);
    const order = ts.map((t, i) => ({ t, i })).sort((a, b) => Number(a.t - b.t) || a.i - b.i);
    expect(page.decisions.map((d) => Buffer.from(d.bytes).toString('hex'))).toEqual(
      order.map(({ i }) => Buffer.from(made[i]!.bytes).toString('hex')),
    );
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
    for (let i = 0; i < 40 && size <= before + 100_000; i++) {
      await new Promise((done) => setTimeout(done, 100));
      size = statSync(path).size;
    }
    expect(size).toBeGreaterThan(before + 100_000);
    expect((await store.stats()).decisions).toBe(5000);
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
