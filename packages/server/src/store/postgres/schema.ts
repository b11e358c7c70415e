/**
 * The shared store's schema: the numbered migrations, and the daily partitions of `decisions`.
 *
 * Migrations: each one is plain SQL that PostgreSQL 15 runs, applied once, in order, in one
 * transaction under an advisory lock (so that instances starting together apply it once), and
 * recorded in `schema_migrations`. A database whose schema is newer than the newest migration
 * here is refused: an older server must not write into it. A migration is never edited once
 * released: a change of schema is a new migration.
 *
 * Which concern keeps which table (`docs/architecture.md`, *The store*): `records`
 * (`records.ts`); `sets` and `decisions` (`decisions.ts`; partitioned by day, here); `blobs` and
 * `policy_rotations` (`policies.ts`); `capacity_reports` (`live.ts`); `log_*` (`log.ts`);
 * `instance_loads` (`../../instances/loads.ts`).
 */
import { hash } from 'node:crypto';
import type pg from 'pg';
import { joinDecision } from '../compact.js';
import { ENTRY, PENDING_ROW } from '../entries.js';
import type { PgContext } from './context.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** What SQL alone cannot do, run after `sql` in the same transaction. */
  readonly after?: (client: pg.ClientBase) => Promise<void>;
}

/**
 * Migration 3's backfill: every decision held becomes a pending entry of the decision log (`t`
 * from its tail, then its digest, SHA-256 of its bytes but `sig`), in the order of its id, so
 * that the log holds every decision the store keeps. Read a page at a time.
 */
async function backfillLog(client: pg.ClientBase): Promise<void> {
  let after = '0';
  for (;;) {
    const { rows } = await client.query<{ id: string; body: Buffer; tail: Buffer }>(
      `SELECT d.id::text AS id, s.body, d.tail FROM decisions d JOIN sets s ON s.id = d.set_id
       WHERE d.id > $1 ORDER BY d.id LIMIT $2`,
      [after, PENDING_ROW],
    );
    if (rows.length === 0) return;
    const entries = Buffer.alloc(ENTRY * rows.length);
    rows.forEach((r, i) => {
      const bytes = joinDecision(new Uint8Array(r.body), new Uint8Array(r.tail));
      r.tail.copy(entries, ENTRY * i, 0, 8);
      hash('sha256', bytes.subarray(0, bytes.length - 64), 'buffer').copy(entries, ENTRY * i + 8);
    });
    await client.query('INSERT INTO log_pending (entries) VALUES ($1)', [entries]);
    after = rows[rows.length - 1]!.id;
  }
}

/** The key of the advisory lock the migrations (and partition maintenance) hold. */
export const SCHEMA_LOCK = 0x7761_6931; // "wai1"

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records, evidence sets, decisions by day, blobs, instance loads',
    sql: `
      -- Each accepted WMH1 by digest (C1). xid: the inserting transaction, for the catch-up
      -- query of the other instances (every row below a snapshot's xmin is settled).
      CREATE TABLE records (
        digest bytea PRIMARY KEY,
        hop bytea NOT NULL,
        start bigint NOT NULL,
        "end" bigint NOT NULL,
        bytes bytea NOT NULL,
        xid xid8 NOT NULL DEFAULT pg_current_xact_id()
      );
      CREATE INDEX records_end ON records ("end");
      CREATE INDEX records_xid ON records (xid);

      -- A window's evidence set (store/compact.ts), shared by the instances that decide over it:
      -- digest is SHA-256 of the body. last_t: the latest decision over it (µs).
      CREATE TABLE sets (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        digest bytea NOT NULL UNIQUE,
        last_t bigint NOT NULL,
        min_start bigint NOT NULL,
        body bytea NOT NULL
      );
      CREATE INDEX sets_last_t ON sets (last_t);

      -- Each decision's tail; key: the first 8 bytes of its digest. Partitioned by day of t
      -- (µs), so that retention drops whole partitions; the default partition takes decisions
      -- outside the days created ahead.
      -- id: the order of their commits, for the listing by time (a monotonic key: appended to
      -- its index, unlike the digest's key).
      CREATE SEQUENCE decisions_id_seq AS bigint;
      CREATE TABLE decisions (
        id bigint NOT NULL DEFAULT nextval('decisions_id_seq'),
        t bigint NOT NULL,
        key bigint NOT NULL,
        set_id bigint NOT NULL,
        tail bytea NOT NULL
      ) PARTITION BY RANGE (t);
      CREATE INDEX decisions_key ON decisions (key);
      CREATE INDEX decisions_id ON decisions (id);
      CREATE TABLE decisions_default PARTITION OF decisions DEFAULT;
      CREATE INDEX decisions_default_t ON decisions_default (t);

      -- Policies, room descriptors, key log heads, by kind and digest.
      CREATE TABLE blobs (
        kind text NOT NULL,
        digest bytea NOT NULL,
        bytes bytea NOT NULL,
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        PRIMARY KEY (kind, digest)
      );

      -- Each instance's own per-pathway loads under a policy, published by its heartbeat
      -- (at: the database's clock, so that the instances' clocks need not agree).
      CREATE TABLE instance_loads (
        instance text PRIMARY KEY,
        policy bytea NOT NULL,
        at timestamptz NOT NULL,
        counts bigint[] NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'live policy',
    sql: `
      -- The latest site capacity report of each pathway and hop (docs/live-policy.md), kept for
      -- every instance; each instance verifies the JWS again.
      CREATE TABLE capacity_reports (
        room bytea NOT NULL,
        pathway text NOT NULL,
        hop text NOT NULL,
        t bigint NOT NULL,
        jws text NOT NULL,
        PRIMARY KEY (room, pathway, hop)
      );

      -- The policies put in force, in order: the instance that writes seq first has rotated
      -- every instance to its policy (whose bytes are in blobs).
      CREATE TABLE policy_rotations (
        room bytea NOT NULL,
        seq bigint NOT NULL,
        digest bytea NOT NULL,
        template bytea NOT NULL,
        at bigint NOT NULL,
        by text NOT NULL,
        written timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (room, seq)
      );
    `,
  },
  {
    version: 3,
    name: 'the decision log; decisions listed by time in its order',
    sql: `
      -- The listing by time: ascending t, then the decision log's order, whatever order the
      -- instances committed them in: the committing transaction (xid), then the row id (the
      -- order within it). Decisions stored before this migration have xid 0 and enter the log in
      -- the order of their ids (the backfill below).
      ALTER TABLE decisions ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
      ALTER TABLE decisions ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
      CREATE INDEX decisions_t_xid_id ON decisions (t, xid, id);

      -- The decision log (docs/server.md, "The decision log"). Pending entries: a row per group
      -- commit, in its transaction, its decisions' 40-byte entries in the batch's order. The
      -- integrator takes the rows of transactions below a snapshot's xmin (every one of them
      -- settled) in the order (xid, id); at: when it was written, by the database's clock.
      CREATE TABLE log_pending (
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        id bigint GENERATED ALWAYS AS IDENTITY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        entries bytea NOT NULL,
        PRIMARY KEY (xid, id)
      );
      -- The head (one row: the origin, the size and root integrated, the minimum index), locked
      -- by each integration; the integrator's lease (the database's clock).
      CREATE TABLE log_head (
        id smallint PRIMARY KEY CHECK (id = 1),
        origin text NOT NULL,
        size bigint NOT NULL,
        root bytea NOT NULL,
        min_index bigint NOT NULL
      );
      CREATE TABLE log_lease (
        id smallint PRIMARY KEY CHECK (id = 1),
        holder text NOT NULL,
        until timestamptz NOT NULL
      );
      -- The entries, as tlog-tiles' entry bundles: bundle idx (entries idx·256 onwards), its
      -- bytes (the full ones never change; the partial one is rewritten as it grows).
      CREATE TABLE log_bundles (idx bigint PRIMARY KEY, data bytea NOT NULL);
      -- Each entry's index by its t (a u64 in a signed column, two's complement) and its
      -- digest's first 8 bytes (the proofs' lookup, and no digest logged twice): ordered by t,
      -- so that appending touches the index's last pages; a (t, key) two digests share (never
      -- yet seen) has its later ones in log_keys_more.
      CREATE TABLE log_keys (
        t bigint NOT NULL,
        key bigint NOT NULL,
        idx bigint NOT NULL,
        PRIMARY KEY (t, key)
      );
      CREATE TABLE log_keys_more (
        t bigint NOT NULL,
        key bigint NOT NULL,
        idx bigint NOT NULL,
        PRIMARY KEY (t, key, idx)
      );
      -- Tiles of level 1 and above, each the latest (widest) of its index; level 0 is derived
      -- from the bundles.
      CREATE TABLE log_tiles (
        level smallint NOT NULL,
        idx bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (level, idx)
      );
      CREATE TABLE log_checkpoints (
        size bigint PRIMARY KEY,
        issued bigint NOT NULL,
        text text NOT NULL
      );
    `,
    after: backfillLog,
  },
  {
    version: 4,
    name: 'capacity leases',
    sql: `
      -- Each instance's lease of each pathway's capacity (docs/server.md, "Capacity across
      -- instances"): the slots it may place sessions in, granted by its heartbeat under an
      -- advisory lock of the deployment, so that the live instances' slots add up to at most
      -- the capacity.
      ALTER TABLE instance_loads ADD COLUMN slots bigint[] NOT NULL DEFAULT '{}';
    `,
  },
  {
    version: 5,
    name: 'each decision its instance; the session secret',
    sql: `
      -- The instance whose commit wrote a decision (docs/server.md, "Loads and sessions"), so
      -- that an instance that starts again rebuilds its own sessions: set per connection, the
      -- writer's (SET wai.instance), so that the group commit's statement names no more
      -- columns; NULL for the decisions before this migration and for a writer that sets none.
      ALTER TABLE decisions ADD COLUMN instance integer;
      ALTER TABLE decisions ALTER COLUMN instance
        SET DEFAULT nullif(current_setting('wai.instance', true), '')::integer;

      -- The session secret of a deployment that configures none (sessions.secret): made by the
      -- first instance to start, shared by every instance, kept across restarts.
      CREATE TABLE session_secret (
        id smallint PRIMARY KEY CHECK (id = 1),
        secret bytea NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'the group commit in one statement',
    sql: `
      -- The group commit is one statement committed on its own (decisions.ts): it raises this
      -- when an evidence set it names was pruned, and nothing of it is written (the batch is
      -- written again with the set).
      CREATE FUNCTION wai_set_gone() RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'an evidence set of the batch was pruned (the batch is written again)'
          USING ERRCODE = 'WAI01';
      END $$;

      -- The decisions by id: no reader left (the newest decision is the sets' latest t).
      DROP INDEX decisions_id;

      -- The decisions by key: a GIN index, whose fast update appends each commit's keys to its
      -- pending list (pages written in order) and merges the list into the index in sorted
      -- batches: by the log's integrator after each integration (decisions.ts, mergeKeys), by
      -- autovacuum, or by the commit that finds the list past its limit. A lookup reads the
      -- index and the pending list. The B-tree it replaces took a random insert per decision at
      -- commit.
      DROP INDEX decisions_key;
      CREATE INDEX decisions_key ON decisions USING gin ((ARRAY[key]))
        WITH (fastupdate = on, gin_pending_list_limit = 16384);

      -- The sets by last_t: the retention reads the table whole (a few rows a window), and the
      -- commit's update of last_t is then a heap-only update (no index entry, no dead one).
      DROP INDEX sets_last_t;

      -- A commit's pending entries (40 bytes a decision) kept in their row, uncompressed, up to
      -- a page: not moved to TOAST, where each would cost two more rows and an index entry.
      ALTER TABLE log_pending ALTER COLUMN entries SET STORAGE EXTERNAL;
      ALTER TABLE log_pending SET (toast_tuple_target = 8160);
    `,
  },
];

/** The newest schema this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Applies the migrations the database lacks, in one transaction holding {@link SCHEMA_LOCK};
 * idempotent. Throws when the database's schema is newer than {@link SCHEMA_VERSION}.
 * The applied versions.
 */
export async function migrate(client: pg.ClientBase, where: string): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT max(version) AS v FROM schema_migrations',
    );
    const current = rows[0]?.v ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `${where}: store schema ${current}, this server reads ${SCHEMA_VERSION} (a newer server migrated it)`,
      );
    }
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await m.after?.(client);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

const DAY_US = 86_400_000_000n;

/** The name of the partition of day `day` (days since the epoch). */
const partitionName = (day: bigint): string => `decisions_d${day}`;

/** The daily partitions of `decisions`: those this instance made, and those ahead. */
export class PgPartitions {
  private readonly days = new Set<bigint>();

  constructor(
    private readonly ctx: PgContext,
    private readonly daysAhead: number,
  ) {}

  /**
   * Creates the daily partitions of `decisions` from the day before `nowUs` to `daysAhead` days
   * after it (idempotent; under the schema lock, so instances do not race). A day whose range
   * already has rows in the default partition is left to it.
   */
  async maintain(nowUs: bigint): Promise<void> {
    const today = nowUs / DAY_US;
    const wanted: bigint[] = [];
    for (let d = today - 1n; d <= today + BigInt(this.daysAhead); d++) {
      if (d >= 0n && !this.days.has(d)) wanted.push(d);
    }
    if (wanted.length === 0) return;
    const c = await this.ctx.hold();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      for (const d of wanted) {
        await c.query('SAVEPOINT p');
        try {
          await c.query(
            `CREATE TABLE IF NOT EXISTS ${partitionName(d)} PARTITION OF decisions
               FOR VALUES FROM (${d * DAY_US}) TO (${(d + 1n) * DAY_US})`,
          );
          await c.query('RELEASE SAVEPOINT p');
          this.days.add(d);
        } catch {
          // 23514: the default partition holds decisions of that day; they stay there.
          await c.query('ROLLBACK TO SAVEPOINT p');
        }
      }
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  /**
   * In a transaction holding {@link SCHEMA_LOCK}: drops the daily partitions wholly before
   * `before` (µs); the decisions they held, and the least `t` of those kept (`undefined`: none).
   */
  async dropBefore(
    c: pg.ClientBase,
    before: bigint,
  ): Promise<{ decisions: number; keptFrom: bigint | undefined }> {
    const { rows: parts } = await c.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
         JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relname = 'decisions' AND c.relname ~ '^decisions_d[0-9]+$'`,
    );
    let decisions = 0;
    let keptFrom: bigint | undefined;
    for (const { name } of parts) {
      const day = BigInt(name.slice('decisions_d'.length));
      if ((day + 1n) * DAY_US <= before) {
        const { rows } = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`);
        decisions += Number(rows[0]!.n);
        await c.query(`DROP TABLE ${name}`);
        this.days.delete(day);
      } else {
        const { rows } = await c.query<{ t: string | null }>(
          `SELECT min(t)::text AS t FROM ${name}`,
        );
        const t = rows[0]!.t;
        if (t !== null && (keptFrom === undefined || BigInt(t) < keptFrom)) keptFrom = BigInt(t);
      }
    }
    return { decisions, keptFrom };
  }
}
