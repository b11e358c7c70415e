/**
 * The embedded store's schema, made or migrated when the store opens. Which concern keeps which
 * table (`docs/architecture.md`, *The store*):
 *
 * - `records` (`records.ts`): each accepted `WMH1` by digest, with its hop, `start` and `end` for
 *   window queries and pruning.
 * - `sets`, `decisions` and `decision_keys` (`decisions.ts`, `decision-keys.ts`): compact
 *   decisions (`../compact.ts`). A decision row holds its tail (what differs per decision, about
 *   135 bytes for 3 pathways), the id of its window's evidence set and the instance (the worker)
 *   that committed it; its digest is not stored,
 *   only its first 8 bytes as an integer (`key`): a read rebuilds the bytes of each row of that
 *   key and returns the one whose SHA-256 is the digest, so that a decision served is always
 *   checked against the digest it is asked by. `decision_keys` is the decisions' index by key,
 *   written in sorted batches rather than at commit (`decision-keys.ts`).
 * - `blobs` and `policy_rotations` (`policies.ts`): policies, room descriptors and key log heads,
 *   by digest; the order of policies put in force.
 * - `capacity_reports` (`live.ts`): the latest site report of each pathway and hop.
 * - `log_*` (`log.ts`): the decision log.
 * - `meta`: the schema's version, and the key merge's progress (`decision-keys.ts`).
 */
import { sha256 } from '@wai-steering/wire';
import type Database from 'better-sqlite3';
import { joinDecision } from '../compact.js';
import { ENTRY, PENDING_ROW } from '../entries.js';
import { asBytes, tailTimeOf, timeColumn } from './context.js';

/**
 * The schema's version: 2 adds each decision's `t` (clamped to 2^53 − 1), indexed, for the
 * listing by time, and the decision log's tables (`log_*`). A store of version 1 is migrated
 * when opened: the `t` column filled from the tails, and every decision it holds made a pending
 * entry of the log, in the order they were stored. 3 replaces the index on `decisions (key)` by
 * `decision_keys`, merged in batches (`decision-keys.ts`); a store of version 2 is migrated when
 * opened (the table filled from the decisions held, in one transaction).
 */
const SCHEMA_VERSION = 3;

/** A store whose schema this server does not read. */
export class StoreSchemaError extends Error {
  override readonly name = 'StoreSchemaError';
}

/**
 * Makes the tables a store lacks, and migrates one of an earlier version; a
 * {@link StoreSchemaError} when the store's version is one this server does not read.
 */
export function migrate(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS records (
      digest BLOB PRIMARY KEY,
      hop BLOB NOT NULL,
      start INTEGER NOT NULL,
      "end" INTEGER NOT NULL,
      bytes BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS records_end ON records ("end");
    CREATE TABLE IF NOT EXISTS sets (
      id INTEGER PRIMARY KEY,
      first_decision INTEGER NOT NULL,
      last_t INTEGER NOT NULL,
      min_start INTEGER NOT NULL,
      body BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS decisions (
      id INTEGER PRIMARY KEY,
      key INTEGER NOT NULL,
      set_id INTEGER NOT NULL,
      tail BLOB NOT NULL,
      t INTEGER NOT NULL,
      instance INTEGER
    );
    CREATE TABLE IF NOT EXISTS decision_keys (
      key INTEGER NOT NULL,
      id INTEGER NOT NULL,
      PRIMARY KEY (key, id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS blobs (
      digest BLOB NOT NULL,
      kind TEXT NOT NULL,
      bytes BLOB NOT NULL,
      PRIMARY KEY (kind, digest)
    ) WITHOUT ROWID;
    -- Live policy (docs/live-policy.md), for the workers of one file: the latest site report of
    -- each pathway and hop, and the policies put in force, in order.
    CREATE TABLE IF NOT EXISTS capacity_reports (
      room BLOB NOT NULL,
      pathway TEXT NOT NULL,
      hop TEXT NOT NULL,
      t INTEGER NOT NULL,
      jws TEXT NOT NULL,
      PRIMARY KEY (room, pathway, hop)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS policy_rotations (
      room BLOB NOT NULL,
      seq INTEGER NOT NULL,
      digest BLOB NOT NULL,
      template BLOB NOT NULL,
      at INTEGER NOT NULL,
      by TEXT NOT NULL,
      PRIMARY KEY (room, seq)
    ) WITHOUT ROWID;
    -- The decision log (docs/server.md, "The decision log"). Pending entries: a row per group
    -- commit, its decisions' 40-byte entries in the batch's order; the row id is the order of
    -- the commits (one writer at a time).
    CREATE TABLE IF NOT EXISTS log_pending (id INTEGER PRIMARY KEY, entries BLOB NOT NULL);
    -- Its head (one row, from the first start of a server that logs), and the integrator's lease.
    CREATE TABLE IF NOT EXISTS log_head (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      origin TEXT NOT NULL,
      size INTEGER NOT NULL,
      root BLOB NOT NULL,
      min_index INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS log_lease (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      holder TEXT NOT NULL,
      until INTEGER NOT NULL
    );
    -- The entries, as tlog-tiles' entry bundles: bundle idx (entries idx·256 onwards), its
    -- bytes (the full ones never change; the partial one is rewritten as it grows).
    CREATE TABLE IF NOT EXISTS log_bundles (idx INTEGER PRIMARY KEY, data BLOB NOT NULL);
    -- Each entry's index by its t and its digest's first 8 bytes (the proofs' lookup, and no
    -- digest logged twice): ordered by t, so that appending touches the index's last pages;
    -- a (t, key) two digests share (never yet seen) has its later ones in log_keys_more.
    CREATE TABLE IF NOT EXISTS log_keys (
      t INTEGER NOT NULL,
      key INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      PRIMARY KEY (t, key)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS log_keys_more (
      t INTEGER NOT NULL,
      key INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      PRIMARY KEY (t, key, idx)
    ) WITHOUT ROWID;
    -- Tiles of level 1 and above, each the latest (widest) of its index; level 0 is derived
    -- from the bundles.
    CREATE TABLE IF NOT EXISTS log_tiles (
      level INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      data BLOB NOT NULL,
      PRIMARY KEY (level, idx)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS log_checkpoints (
      size INTEGER PRIMARY KEY,
      issued INTEGER NOT NULL,
      text TEXT NOT NULL
    );
  `);
  const row = db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as
    | { v: number }
    | undefined;
  if (row === undefined) {
    db.prepare("INSERT INTO meta (k, v) VALUES ('schema', ?)").run(SCHEMA_VERSION);
  } else if (row.v === 1 || row.v === 2) {
    if (row.v === 1) migrateFrom1(db);
    migrateFrom2(db);
  } else if (row.v !== SCHEMA_VERSION) {
    throw new StoreSchemaError(
      `the store's schema is version ${row.v}; this server reads version ${SCHEMA_VERSION}`,
    );
  }
  addInstanceColumn(db);
  db.prepare("INSERT OR IGNORE INTO meta (k, v) VALUES ('keys_through', 0)").run();
  // Until when (ms, the machine's clock) a process's merge of the keys runs: 0 when none does.
  db.prepare("INSERT OR IGNORE INTO meta (k, v) VALUES ('keys_merging', 0)").run();
  // The listing by time: `t`, then the row id (the index holds it).
  db.exec('CREATE INDEX IF NOT EXISTS decisions_t ON decisions (t)');
}

/**
 * Each decision's instance (the worker of `serve --workers N` that committed it: its slot), for
 * the rebuild of its sessions at start: a column a store of any version 3 lacks until its first
 * open by this server, added then (`NULL` for the decisions before it). An added column changes
 * nothing for a server that does not read it, so the version stays 3.
 */
function addInstanceColumn(db: Database.Database): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('decisions')").pluck().all();
  if (!columns.includes('instance')) db.exec('ALTER TABLE decisions ADD COLUMN instance INTEGER');
}

/**
 * Version 1 to 2, in one transaction: each decision's `t`, read from its tail; and every
 * decision held made a pending entry of the log, in the order stored (the log holds every
 * decision the store keeps).
 */
function migrateFrom1(db: Database.Database): void {
  db.transaction(() => {
    db.exec('ALTER TABLE decisions ADD COLUMN t INTEGER NOT NULL DEFAULT 0');
    // One statement over the table, the tail read by a function of this connection only.
    db.function('wai_tail_t', { deterministic: true }, (tail: unknown) =>
      timeColumn(tailTimeOf(asBytes(tail as Buffer))),
    );
    db.exec('UPDATE decisions SET t = wai_tail_t(tail)');
    const rows = db
      .prepare('SELECT set_id, tail FROM decisions ORDER BY id')
      .iterate() as Iterable<{ set_id: number; tail: Buffer }>;
    const getSet = db.prepare('SELECT body FROM sets WHERE id = ?').pluck();
    const insert = db.prepare('INSERT INTO log_pending (entries) VALUES (?)');
    let chunk = new Uint8Array(PENDING_ROW * ENTRY);
    let n = 0;
    let setId = -1;
    let set: Uint8Array | undefined;
    for (const row of rows) {
      if (row.set_id !== setId) {
        setId = row.set_id;
        const b = getSet.get(setId) as Buffer | undefined;
        set = b === undefined ? undefined : asBytes(b);
      }
      if (set === undefined) continue;
      const tail = asBytes(row.tail);
      const bytes = joinDecision(set, tail);
      chunk.set(tail.subarray(0, 8), n * ENTRY);
      chunk.set(sha256(bytes.subarray(0, bytes.length - 64)), n * ENTRY + 8);
      if (++n === PENDING_ROW) {
        insert.run(chunk);
        chunk = new Uint8Array(PENDING_ROW * ENTRY);
        n = 0;
      }
    }
    if (n > 0) insert.run(chunk.subarray(0, n * ENTRY));
    db.prepare("UPDATE meta SET v = 2 WHERE k = 'schema'").run();
  }).immediate();
}

/**
 * Version 2 to 3, in one transaction: the index on `decisions (key)` becomes `decision_keys`,
 * filled with every decision held (in key order), and `keys_through` their latest id.
 */
function migrateFrom2(db: Database.Database): void {
  db.transaction(() => {
    db.exec(`
      INSERT OR IGNORE INTO decision_keys (key, id) SELECT key, id FROM decisions ORDER BY key, id;
      DROP INDEX IF EXISTS decisions_key;
      INSERT OR REPLACE INTO meta (k, v)
        VALUES ('keys_through', (SELECT coalesce(max(id), 0) FROM decisions));
    `);
    db.prepare("UPDATE meta SET v = ? WHERE k = 'schema'").run(SCHEMA_VERSION);
  }).immediate();
}
