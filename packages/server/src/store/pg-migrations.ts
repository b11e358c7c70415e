/**
 * The PostgreSQL store's schema, as numbered migrations: each one is plain SQL that PostgreSQL 15
 * runs, applied once, in order, in one transaction under an advisory lock (so that instances
 * starting together apply it once), and recorded in `schema_migrations`. A database whose schema
 * is newer than the newest migration here is refused: an older server must not write into it.
 *
 * A migration is never edited once released: a change of schema is a new migration.
 */
import type pg from 'pg';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
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
    name: 'capacity leases',
    sql: `
      -- Each instance's lease of each pathway's capacity (docs/server.md, "Capacity across
      -- instances"): the slots it may place sessions in, granted by its heartbeat under an
      -- advisory lock of the deployment, so that the live instances' slots add up to at most
      -- the capacity.
      ALTER TABLE instance_loads ADD COLUMN slots bigint[] NOT NULL DEFAULT '{}';
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
