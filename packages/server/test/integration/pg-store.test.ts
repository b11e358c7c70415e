import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitDecision } from '../../src/store/compact.js';
import { LAST_T_LAG_US } from '../../src/store/postgres/decisions.js';
import { PgStore } from '../../src/store/postgres/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import type { DecisionCursor } from '../../src/store/store.js';
import { integrateAll, TEST_ORIGIN } from '../helpers/log.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { altered, decisionAt, fakeRecord, keyOf, storeContract } from '../store-contract.js';
import { readContract } from '../store-contract-read.js';

let cluster: PgCluster;
let databases = 0;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

const freshDb = () => cluster.createDatabase(`t${++databases}`);

storeContract('PgStore', async () => {
  const url = await freshDb();
  return {
    store: await PgStore.open(url),
    reopen: () => PgStore.open(url),
    dispose: async () => {},
    damage: async (digest) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const { rows } = await c.query<{ id: string; tail: Buffer }>(
        'SELECT id, tail FROM decisions WHERE key = $1',
        [keyOf(digest)],
      );
      for (const r of rows) {
        await c.query('UPDATE decisions SET tail = $1 WHERE id = $2', [
          Buffer.from(altered(r.tail)),
          r.id,
        ]);
      }
      await c.end();
    },
  };
});

readContract('PgStore', async (instance) => {
  const url = await freshDb();
  return {
    store: await PgStore.open(url, instance === undefined ? {} : { instance }),
    reopen: (again) => PgStore.open(url, again === undefined ? {} : { instance: again }),
    dispose: async () => {},
  };
});

describe('PgStore', () => {
  it('keeps one session secret for every instance and every start', async () => {
    const url = await freshDb();
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url), PgStore.open(url)]);
    const secrets = await Promise.all(stores.map((s) => s.sessionSecret()));
    for (const s of stores) await s.close();
    expect(secrets[0]!.length).toBe(32);
    for (const x of secrets) expect(x).toEqual(secrets[0]);
    const again = await PgStore.open(url);
    expect(await again.sessionSecret()).toEqual(secrets[0]);
    await again.close();
    expect(
      await (async () => {
        const other = await PgStore.open(await freshDb());
        const s = await other.sessionSecret();
        await other.close();
        return s;
      })(),
    ).not.toEqual(secrets[0]);
  });

  it('applies its migrations once, whoever starts first, and refuses a newer schema', async () => {
    const url = await freshDb();
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url), PgStore.open(url)]);
    for (const s of stores) await s.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await c.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'future')", [
      SCHEMA_VERSION + 1,
    ]);
    await c.end();
    await expect(PgStore.open(url)).rejects.toThrow(/schema .* this server reads/);
  });

  it('migrates a database of schema 2: every decision held made a pending entry of the log, in the order of its ids', async () => {
    const url = await freshDb();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    // Schema 2 by hand (migrations 1 and 2), and decisions as the previous release wrote them.
    await c.query(
      'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const m of MIGRATIONS.slice(0, 2)) {
      await c.query(m.sql);
      await c.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
    }
    const made = [3n, 1n, 2n].map((t, i) =>
      decisionAt(1_000n + t, i, [[new Uint8Array(32).fill(4)]]),
    );
    const cut = splitDecision(made[0]!.bytes);
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO sets (digest, last_t, min_start, body) VALUES ($1, 0, 0, $2) RETURNING id`,
      [createHash('sha256').update(cut.set).digest(), Buffer.from(cut.set)],
    );
    for (const d of made) {
      const { tail } = splitDecision(d.bytes);
      await c.query('INSERT INTO decisions (t, key, set_id, tail) VALUES ($1, $2, $3, $4)', [
        new DataView(tail.buffer, tail.byteOffset).getBigUint64(0, true).toString(),
        new DataView(d.digest.buffer, d.digest.byteOffset).getBigInt64(0, false).toString(),
        rows[0]!.id,
        Buffer.from(tail),
      ]);
    }
    await c.end();
    const store = await PgStore.open(url);
    try {
      await store.beginLog(TEST_ORIGIN);
      await integrateAll(store);
      expect(
        (await store.logEntries(0n, 10n)).map((e) => Buffer.from(e.digest).toString('hex')),
      ).toEqual(made.map((d) => Buffer.from(d.digest).toString('hex')));
      // Listed by t (the migrated rows' transaction is 0: equal t would follow their ids).
      const page = await store.listDecisions(0n, 1n << 62n, null, 10);
      expect(page.decisions.map((d) => d.t)).toEqual([1_001n, 1_002n, 1_003n]);
    } finally {
      await store.close();
    }
  });

  it('migrates a database of schema 4: the decisions found by key through the new index, the commit in one statement', async () => {
    const url = await freshDb();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    // Schema 4 by hand (migrations 1 to 4), and decisions, a set and a pending row as the
    // previous release wrote them.
    await c.query(
      'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const m of MIGRATIONS.filter((m) => m.version <= 4)) {
      await c.query(m.sql);
      await m.after?.(c);
      await c.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
    }
    const r = fakeRecord(1n, 2n, 1);
    const made = [1n, 2n, 3n].map((t, i) => decisionAt(1_000n + t, i, [[r.digest]]));
    const cut = splitDecision(made[0]!.bytes);
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO sets (digest, last_t, min_start, body) VALUES ($1, 1003, 0, $2) RETURNING id`,
      [createHash('sha256').update(cut.set).digest(), Buffer.from(cut.set)],
    );
    const entries = Buffer.alloc(40 * made.length);
    made.forEach((d, i) => {
      const { tail } = splitDecision(d.bytes);
      Buffer.from(tail.subarray(0, 8)).copy(entries, 40 * i);
      Buffer.from(d.digest).copy(entries, 40 * i + 8);
    });
    await c.query('BEGIN');
    for (const d of made) {
      const { tail } = splitDecision(d.bytes);
      await c.query('INSERT INTO decisions (t, key, set_id, tail) VALUES ($1, $2, $3, $4)', [
        new DataView(tail.buffer, tail.byteOffset).getBigUint64(0, true).toString(),
        keyOf(d.digest).toString(),
        rows[0]!.id,
        Buffer.from(tail),
      ]);
    }
    await c.query('INSERT INTO log_pending (entries) VALUES ($1)', [entries]);
    await c.query('COMMIT');
    const store = await PgStore.open(url);
    try {
      const { rows: version } = await c.query('SELECT max(version) AS v FROM schema_migrations');
      expect(version[0].v).toBe(6);
      const { rows: indexes } = await c.query<{ name: string; def: string }>(
        `SELECT indexname AS name, indexdef AS def FROM pg_indexes
         WHERE tablename IN ('decisions', 'sets') ORDER BY indexname`,
      );
      expect(indexes.map((i) => i.name)).not.toContain('decisions_id');
      expect(indexes.map((i) => i.name)).not.toContain('sets_last_t');
      expect(indexes.find((i) => i.name === 'decisions_key')?.def).toMatch(/USING gin/);
      // The decisions held are found by their digest, and the newest is theirs.
      for (const d of made) {
        const got = await store.getDecision(d.digest);
        expect(got !== undefined && Buffer.from(got).equals(Buffer.from(d.bytes))).toBe(true);
      }
      expect((await store.newest(10n)).decision).toBe(1_003n);
      // A new decision over the same set: one statement; then the log of all four.
      const next = decisionAt(1_004n, 4, [[r.digest]]);
      await store.commit({ records: [], decisions: [next] });
      const got = await store.getDecision(next.digest);
      expect(got !== undefined && Buffer.from(got).equals(Buffer.from(next.bytes))).toBe(true);
      expect((await store.stats()).sets).toBe(1);
      await store.beginLog(TEST_ORIGIN);
      await integrateAll(store);
      expect(
        (await store.logEntries(0n, 10n)).map((e) => Buffer.from(e.digest).toString('hex')),
      ).toEqual([...made, next].map((d) => Buffer.from(d.digest).toString('hex')));
    } finally {
      await store.close();
      await c.end();
    }
  });

  it('writes a batch again, with its set, when another instance pruned the set under it', async () => {
    const url = await freshDb();
    const a = await PgStore.open(url);
    const b = await PgStore.open(url);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = fakeRecord(1n, 2n, 1);
      await a.commit({ records: [r], decisions: [] });
      const d1 = decisionAt(5_000n, 1, [[r.digest]]);
      await a.commit({ records: [], decisions: [d1] });
      // B prunes every decision, and with them the set A decides over.
      await b.prune(0n, 10_000n);
      expect((await b.stats()).sets).toBe(0);
      // A's next decision over that set: its statement finds the set gone and writes nothing;
      // the batch is written again with the set.
      const d2 = decisionAt(11_000n, 2, [[r.digest]]);
      await a.commit({ records: [], decisions: [d2] });
      const got = await b.getDecision(d2.digest);
      expect(got !== undefined && Buffer.from(got).equals(Buffer.from(d2.bytes))).toBe(true);
      expect([(await b.stats()).decisions, (await b.stats()).sets]).toEqual([1, 1]);
      // One pending row a commit written: d1's and d2's.
      const { rows } = await c.query('SELECT count(*)::int AS n FROM log_pending');
      expect(rows[0].n).toBe(2);
    } finally {
      await c.end();
      await a.close();
      await b.close();
    }
  });

  it('serves from one instance what another committed, and catches up on records', async () => {
    const url = await freshDb();
    const a = await PgStore.open(url);
    const b = await PgStore.open(url);
    try {
      const heard: string[] = [];
      await b.subscribe((n) => {
        if (n.kind === 'record') heard.push(Buffer.from(n.digest).toString('hex'));
      });
      const first = await b.recordsSince(undefined, 0n);
      expect(first.records).toEqual([]);
      const r1 = fakeRecord(100n, 200n, 1);
      const r2 = fakeRecord(100n, 50n, 2);
      await a.commit({ records: [r1, r2], decisions: [] });
      const d = decisionAt(1_000n, 1, [[r1.digest]]);
      await a.commit({ records: [], decisions: [d] });
      const got = await b.getDecision(d.digest);
      expect(got !== undefined && Buffer.from(got).equals(Buffer.from(d.bytes))).toBe(true);
      // The catch-up: what ends after 60 and was committed since the last horizon.
      const next = await b.recordsSince(first.horizon, 60n);
      expect(next.records.map((r) => Buffer.from(r.digest).toString('hex'))).toEqual([
        Buffer.from(r1.digest).toString('hex'),
      ]);
      for (let i = 0; i < 3000 && heard.length < 2; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(heard.sort()).toEqual(
        [r1, r2].map((r) => Buffer.from(r.digest).toString('hex')).sort(),
      );
      // Both instances decide over one window: one evidence set row.
      await b.commit({ records: [], decisions: [decisionAt(1_001n, 2, [[r1.digest]])] });
      expect((await b.stats()).sets).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('partitions decisions by day and drops whole days', async () => {
    const url = await freshDb();
    const store = await PgStore.open(url);
    try {
      const DAY = 86_400_000_000n;
      const day = 20_000n;
      await store.maintain(day * DAY);
      const r = fakeRecord(0n, 10n, 1);
      await store.commit({ records: [r], decisions: [] });
      const old = decisionAt(day * DAY - DAY / 2n, 1, [[r.digest]]);
      const kept = decisionAt(day * DAY + 5n, 2, [[r.digest]]);
      await store.commit({ records: [], decisions: [old, kept] });
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const where = await c.query(
        'SELECT tableoid::regclass::text AS p, count(*)::int AS n FROM decisions GROUP BY 1 ORDER BY 1',
      );
      expect(where.rows).toEqual([
        { p: `decisions_d${day - 1n}`, n: 1 },
        { p: `decisions_d${day}`, n: 1 },
      ]);
      const pruned = await store.prune(0n, day * DAY);
      expect(pruned.decisions).toBe(1);
      const parts = await c.query(
        "SELECT relname FROM pg_class WHERE relname ~ '^decisions_d[0-9]+$' ORDER BY relname",
      );
      expect(parts.rows.map((x) => x.relname)).not.toContain(`decisions_d${day - 1n}`);
      expect(parts.rows.map((x) => x.relname)).toContain(`decisions_d${day}`);
      await c.end();
      expect(await store.getDecision(old.digest)).toBeUndefined();
      expect(await store.getDecision(kept.digest)).toBeDefined();
    } finally {
      await store.close();
    }
  });

  it('replaces a connection the database dropped, and listens again', async () => {
    const url = await freshDb();
    const store = await PgStore.open(url);
    const heard: string[] = [];
    let listening = 0;
    await store.subscribe((n) => {
      if (n.kind === 'record') heard.push(Buffer.from(n.digest).toString('hex'));
      if (n.kind === 'listening') listening++;
    });
    // The faults it tells: the notification connection down, then up again.
    const told: string[] = [];
    store.reportFaultsTo({
      fail: (cause) => told.push(`fail ${cause}`),
      clear: (cause) => told.push(`clear ${cause}`),
    });
    try {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const killed = await c.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await c.end();
      expect(killed.rowCount).toBeGreaterThanOrEqual(2);
      // Listening again (a second after the failure, later on a busy machine): told so.
      for (let i = 0; i < 1200 && listening === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(listening).toBe(1);
      expect(told.indexOf('fail store_notifications')).toBeGreaterThanOrEqual(0);
      expect(told.lastIndexOf('clear store_notifications')).toBeGreaterThan(
        told.indexOf('fail store_notifications'),
      );
      const r = fakeRecord(1n, 2n, 9);
      const d = decisionAt(3n, 1, [[r.digest]]);
      await store.commit({ records: [r], decisions: [d] });
      expect(await store.getDecision(d.digest)).toBeDefined();
      for (let i = 0; i < 6000 && heard.length === 0; i++)
        await new Promise((x) => setTimeout(x, 10));
      expect(heard).toEqual([Buffer.from(r.digest).toString('hex')]);
    } finally {
      await store.close();
    }
  });

  it('lists decisions by time a page at a time, and tells the newest it holds', async () => {
    const url = await freshDb();
    const store = await PgStore.open(url);
    try {
      const r = fakeRecord(1n, 2n, 1);
      await store.commit({ records: [r], decisions: [] });
      const all = Array.from({ length: 7 }, (_, i) =>
        decisionAt(1_000n + BigInt(i), i, [[r.digest]]),
      );
      await store.commit({ records: [], decisions: all.slice(0, 4) });
      await store.commit({ records: [], decisions: all.slice(4) });
      const seen: string[] = [];
      let after: DecisionCursor | null = null;
      for (let page = 0; page < 10; page++) {
        const got = await store.listDecisions(1_001n, 1_006n, after, 2);
        for (const d of got.decisions) {
          expect(Buffer.from(d.bytes).equals(Buffer.from(all[Number(d.t - 1_000n)]!.bytes))).toBe(
            true,
          );
          seen.push(Buffer.from(d.digest).toString('hex'));
        }
        if (got.next === null) break;
        after = got.next;
      }
      expect(seen).toEqual(all.slice(1, 6).map((d) => Buffer.from(d.digest).toString('hex')));
      expect(await store.newest(10n)).toEqual({ decision: 1_006n, record: 2n });
      expect((await store.listBlobs('policy')).length).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("moves a set's last_t once a LAST_T_LAG_US, not at each commit, and stays exact in the newest decision and retention", async () => {
    const url = await freshDb();
    const store = await PgStore.open(url);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = fakeRecord(1n, 2n, 1);
      await store.commit({ records: [r], decisions: [] });
      const lastT = async () =>
        (await c.query<{ t: string }>('SELECT last_t::text AS t FROM sets')).rows.map((x) =>
          BigInt(x.t),
        );
      // Forty commits within the lag of the first: the set's row keeps the last_t of its insert
      // (each commit only locks it), where each used to write a new version of it.
      const base = 5_000_000n;
      for (let i = 0; i < 40; i++) {
        await store.commit({
          records: [],
          decisions: [decisionAt(base + BigInt(i), i, [[r.digest]])],
        });
      }
      expect(await lastT()).toEqual([base]);
      // The newest decision is the decisions' own: exact, whatever the set's last_t says.
      expect((await store.newest(10n)).decision).toBe(base + 39n);
      // One decision past the lag moves it.
      const later = decisionAt(base + LAST_T_LAG_US, 40, [[r.digest]]);
      await store.commit({ records: [], decisions: [later] });
      expect(await lastT()).toEqual([base + LAST_T_LAG_US]);
      // Retention: every decision before `later` pruned; the set (its last_t is `later`'s) is
      // named by a kept decision and stays.
      const kept = await store.prune(0n, base + LAST_T_LAG_US);
      expect([kept.decisions, kept.sets]).toEqual([40, 0]);
      expect(await store.getDecision(later.digest)).toBeDefined();
      // A decision within the lag after it leaves last_t behind; pruning `later` keeps the set
      // (the kept decision names it, though last_t is before it), and pruning that one too
      // removes it.
      const last = decisionAt(base + LAST_T_LAG_US + 7n, 41, [[r.digest]]);
      await store.commit({ records: [], decisions: [last] });
      expect(await lastT()).toEqual([base + LAST_T_LAG_US]);
      const one = await store.prune(0n, base + LAST_T_LAG_US + 1n);
      expect([one.decisions, one.sets]).toEqual([1, 0]);
      expect(await store.getDecision(last.digest)).toBeDefined();
      const all = await store.prune(0n, base + LAST_T_LAG_US + 8n);
      expect([all.decisions, all.sets]).toEqual([1, 1]);
    } finally {
      await c.end();
      await store.close();
    }
  });

  it('catches up on a record whose transaction committed after a later one', async () => {
    const url = await freshDb();
    const store = await PgStore.open(url);
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    try {
      const hex = (r: { digest: Uint8Array }) => Buffer.from(r.digest).toString('hex');
      const h0 = (await store.recordsSince(undefined, 0n)).horizon;
      const r1 = fakeRecord(10n, 20n, 1);
      const r2 = fakeRecord(10n, 20n, 2);
      // r1's transaction starts first and commits last.
      await slow.query('BEGIN');
      await slow.query(
        'INSERT INTO records (digest, hop, start, "end", bytes) VALUES ($1, $2, $3, $4, $5)',
        [Buffer.from(r1.digest), Buffer.from(r1.hop), 10, 20, Buffer.from(r1.bytes)],
      );
      await store.commit({ records: [r2], decisions: [] });
      const first = await store.recordsSince(h0, 0n);
      expect(first.records.map(hex)).toEqual([hex(r2)]);
      await slow.query('COMMIT');
      const second = await store.recordsSince(first.horizon, 0n);
      expect(second.records.map(hex)).toContain(hex(r1));
    } finally {
      await slow.end();
      await store.close();
    }
  });
});
