/**
 * The embedded store: SQLite through `better-sqlite3`, in WAL mode.
 *
 * - `records`: each accepted `WMH1` by digest, with its hop, `start` and `end` for window queries
 *   and pruning.
 * - `sets` and `decisions`: compact decisions (`compact.ts`). A decision row holds its tail (what
 *   differs per decision, about 135 bytes for 3 pathways) and the id of its window's evidence set;
 *   its digest is not stored, only its first 8 bytes as an integer (`key`): `getDecision` rebuilds
 *   the bytes of each row of that key and returns the one whose SHA-256 is the digest, so that a
 *   decision served is always checked against the digest it is asked by.
 * - `decision_keys`: the decisions' index by key, written in sorted batches rather than at commit
 *   (a random B-tree insert per decision was most of a commit's cost): each (key, id) of the
 *   decisions up to `keys_through` (in `meta`); the decisions after it (fewer than a batch, but
 *   while a merge runs) are found through a map by key that each connection brings up to date
 *   by row id. See {@link KEY_MERGE_ROWS}.
 * - `blobs`: policies, room descriptors and key log heads, by digest.
 *
 * The store interface is asynchronous (`store.ts`); SQLite here is synchronous inside, each
 * method answering in a settled promise. One cohesive thing over 450 lines: the schema, its
 * statements and the compact decisions they share.
 *
 * Durability: `synchronous = NORMAL` (the default) makes a committed transaction survive the
 * death of the process (kill -9): in WAL mode the commit is in the WAL file, written with
 * `write(2)`, when it returns, and SQLite replays it at the next open; a power loss may lose the
 * last transactions before a checkpoint. `synchronous = FULL` also fsyncs the WAL at each commit,
 * which survives a power loss and costs an fsync per group commit.
 */
import { closeSync as closeFd, fstatSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { bytesEqual, sha256, toHex } from '@wai-steering/wire';
import Database from 'better-sqlite3';
import { joinDecision, splitAgainst } from './compact.js';
import {
  type BlobKind,
  type CommitBatch,
  type CommitResult,
  type DecisionCursor,
  type DecisionPage,
  type ListedDecision,
  type LogEntryRow,
  type LogHead,
  type LogIntegrated,
  type LogPlan,
  type LogPlanInput,
  type NewestHeld,
  POLICY_LAG_US,
  type PolicyClaim,
  type PruneResult,
  type SteeringStore,
  StoreDamagedError,
  type StoredCapacityReport,
  type StoredCheckpoint,
  type StoredRecord,
  type StoreStats,
} from './store.js';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** `normal` (default): survives a crash of the process; `full`: also a power loss. */
  readonly synchronous?: 'normal' | 'full';
  /**
   * `background` (default for a file): WAL checkpoints run on a worker thread with its own
   * connection, every 250 ms, so that copying pages into the database and its fsync stay off
   * the event loop; `inline`: SQLite's automatic checkpoint, in the commit that fills 1 000 pages.
   */
  readonly checkpoint?: 'background' | 'inline';
  /**
   * Internal, for the log's bench only: `false` writes no pending entry of the decision log at
   * commit (the log is always on otherwise).
   */
  readonly logAppend?: boolean;
  /**
   * Internal, for tests: the WAL's frames past which the checkpointer restarts it (default
   * 16 384: 64 MiB of 4 KiB pages).
   */
  readonly walRestartFrames?: number;
  /** Internal, for tests and the bench: {@link KEY_MERGE_ROWS}. */
  readonly keyMergeRows?: number;
}

/** The checkpointer: a worker thread with its own connection (WAL allows it beside the writer). */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.path);
  db.pragma('busy_timeout = 5000');
} catch (e) {
  parentPort.postMessage({ failed: String(e && e.message) });
  process.exit(0);
}
const run = () => {
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    // A writer that never pauses keeps some frames uncopied at every passive checkpoint, and a WAL
    // starts again from its beginning only after one that copied them all: so, past
    // restartFrames, one that waits for the writer between two commits and copies the rest
    // (little, after the passive one), after which the next commit writes from the WAL's start.
    // It holds the write lock while it waits for the readers: tried only when the passive one
    // copied every frame (no reader holds an older snapshot, as a long export would), and given
    // up after 10 ms, so that commits never wait on it for longer.
    if (r !== undefined && r.log >= workerData.restartFrames && r.checkpointed === r.log) {
      db.pragma('busy_timeout = 10');
      try { db.pragma('wal_checkpoint(RESTART)'); } finally { db.pragma('busy_timeout = 5000'); }
    }
  } catch {}
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.close(); } catch {}
  process.exit(0);
});
`;

/** How long a write waits for another process's write lock before it fails. */
const BUSY_WAIT_MS = 5000;

/** Whether `e` is SQLite's "database is locked" (another connection holds the write lock). */
function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY';
}

/**
 * Past this many frames the checkpointer restarts the WAL (16 384: 64 MiB of 4 KiB pages), so
 * that its file stays about that size under a steady load.
 */
const WAL_RESTART_FRAMES = 16_384;

/**
 * Past this size the WAL is checkpointed inline, and its file truncated, whatever the worker
 * managed (a file restarted keeps its size: truncated, it is not found past the limit again).
 */
const WAL_LIMIT = 256 * 1024 * 1024;

/**
 * The schema's version: 2 adds each decision's `t` (clamped to 2^53 − 1), indexed, for the
 * listing by time, and the decision log's tables (`log_*`). A store of version 1 is migrated
 * when opened: the `t` column filled from the tails, and every decision it holds made a pending
 * entry of the log, in the order they were stored. 3 replaces the index on `decisions (key)` by
 * `decision_keys`, merged in batches ({@link KEY_MERGE_ROWS}); a store of version 2 is migrated
 * when opened (the table filled from the decisions held, in one transaction).
 */
const SCHEMA_VERSION = 3;

/**
 * The decisions not yet in `decision_keys` past which a merge starts (after a commit): 16 384.
 *
 * A decision's key is the first 8 bytes of its digest, random: an index on it kept at commit
 * costs a random B-tree insert per decision, whose leaf page the WAL writes and the checkpointer
 * copies again, commit after commit (two thirds of a group commit's cost with 200 000 decisions
 * held: `bench/commit.bench.mjs`). Merged in batches of this many, sorted, the inserts share
 * their pages: a few decisions a page instead of one. The decisions past `keys_through` are
 * looked up through a map by key that each connection fills from their rows, by row id (once:
 * about 1 ms for this many, then the rows since its last lookup). The merge runs in
 * {@link KEY_SLICES} transactions apart, between commits, each over a part of the key range.
 */
const KEY_MERGE_ROWS = 16_384;
/** The merge's transactions, each over 1/8 of the keys (a few ms each, between commits). */
const KEY_SLICES = 8;
/** How long a merge waits for another process's write lock before it gives up (till the next). */
const KEY_MERGE_WAIT_MS = 5000;
/** How long a process whose merge found another's under way waits before it looks again. */
const KEY_MERGE_AGAIN_MS = 100;
/** The lower bound of each slice's keys (signed 64-bit), and the last one's upper bound. */
const KEY_BOUNDS: readonly bigint[] = Array.from(
  { length: KEY_SLICES + 1 },
  (_, i) => -(1n << 63n) + (BigInt(i) << 64n) / BigInt(KEY_SLICES),
);
/** SQLite integers are signed 64-bit: the columns that index a u64 clamp it (the bytes are exact). */
const INT_MAX = BigInt(Number.MAX_SAFE_INTEGER);

function clampU64(v: bigint): number {
  return Number(v > INT_MAX ? INT_MAX : v);
}

/** The first 8 bytes of a digest as a signed 64-bit integer: the decisions' lookup key. */
function keyOf(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigInt64(0, false);
}

/** The `t` column of a decision: its `t`, µs, clamped to 2^53 − 1 (the bytes are exact). */
function timeColumn(t: number): number {
  return Math.min(t, Number.MAX_SAFE_INTEGER);
}

/** A u64 in a signed 64-bit column, exactly (two's complement): the log's `t` and sizes. */
const asInt64 = (v: bigint): bigint => BigInt.asIntN(64, v);
const asU64 = (v: bigint | number): bigint => BigInt.asUintN(64, BigInt(v));

/** The decision log's entry of a decision: its tail's `t` (8 bytes), then its digest. */
const ENTRY = 40;

/** Pending entries of the log are written this many to a row at most (the backfill's rows). */
const PENDING_ROW = 4096;

/**
 * Entries' keys inserted by one statement (the integrator's common case), under a savepoint:
 * three statements a chunk (768 parameters, within SQLite's 32,766).
 */
const KEYS_AT_ONCE = 256;

/**
 * The log's key of an entry: its digest's first 6 bytes, a number (a 48-bit prefix: with the
 * entry's t, two digests share it about never, and the store tells them apart when they do).
 */
function logKeyOf(entry: Uint8Array): number {
  let k = 0;
  for (let i = 8; i < 14; i++) k = k * 256 + entry[i]!;
  return k;
}

/**
 * An entry's t in a signed 64-bit column: a number when exact, else the bigint (two's
 * complement). Read as two 32-bit words: a t of at most 2^53 − 1 (its high word below 2^21, every
 * t of this era) makes no bigint.
 */
function entryTime(entry: Uint8Array): number | bigint {
  const lo = (entry[0]! | (entry[1]! << 8) | (entry[2]! << 16) | (entry[3]! << 24)) >>> 0;
  const hi = (entry[4]! | (entry[5]! << 8) | (entry[6]! << 16) | (entry[7]! << 24)) >>> 0;
  if (hi < 0x200000) return hi * 0x100000000 + lo;
  return asInt64((BigInt(hi) << 32n) | BigInt(lo));
}

/** An index in a signed 64-bit column: a number when exact. */
function indexColumn(i: bigint): number | bigint {
  return i <= INT_MAX ? Number(i) : asInt64(i);
}

/** A listed decision row that does not rebuild its digest: named by its key (8 bytes, hex). */
function damagedRow(key: bigint | number): StoreDamagedError {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, BigInt(key), false);
  return new StoreDamagedError('decision', `${toHex(b)}…`);
}

/** `t` of a tail (its first 8 bytes, u64), µs; exact below 2^53. */
function tailTimeOf(tail: Uint8Array): number {
  return Number(new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true));
}

/** An index in a signed 64-bit column: from 0 to 2^63 − 1. */
function clampIndex(v: bigint): bigint {
  return v < 0n ? 0n : v > INT64_MAX ? INT64_MAX : v;
}
const INT64_MAX = (1n << 63n) - 1n;

/** The entries of an entry bundle the log wrote (big-endian u16 lengths, 40 bytes each). */
function bundleEntries(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at + 2 + ENTRY <= data.length; at += 2 + ENTRY) {
    out.push(data.subarray(at + 2, at + 2 + ENTRY));
  }
  return out;
}

/** Entry `i` of an entry bundle the log wrote. */
function bundleEntry(data: Uint8Array, i: number): Uint8Array | undefined {
  const at = i * (2 + ENTRY);
  return at + 2 + ENTRY <= data.length ? data.subarray(at + 2, at + 2 + ENTRY) : undefined;
}

function checkpointOf(r: { size: bigint; issued: bigint; text: string }): StoredCheckpoint {
  return { size: asU64(r.size), issued: asU64(r.issued), text: r.text };
}

/** The value of `f`, or its exception, as a settled promise. */
function settle<T>(f: () => T): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (e) {
    return Promise.reject(e);
  }
}

const asBytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** A store whose schema this server does not read. */
export class StoreSchemaError extends Error {
  override readonly name = 'StoreSchemaError';
}

/**
 * What sits at the store's path while the server runs (see {@link SqliteStore.fileState}): the
 * database file, or its write-ahead log (`-wal`) or shared memory (`-shm`), removed or replaced.
 */
export type StoreFileState = 'ok' | 'removed' | 'replaced' | 'wal_removed' | 'wal_replaced';

/** A file of the store watched: a descriptor of it as opened, and its inode. */
interface Watched {
  readonly path: string;
  fd: number | undefined;
  ino: number | bigint | undefined;
}

/** The identity of a watched file now: `ok`, `removed` or `replaced` (`undefined`: not yet seen). */
function identity(w: Watched): 'ok' | 'removed' | 'replaced' | undefined {
  if (w.fd === undefined) {
    // Not there when the store opened (SQLite creates the log at the first transaction).
    try {
      w.fd = openSync(w.path, 'r');
      w.ino = fstatSync(w.fd).ino;
    } catch {
      w.fd = undefined;
    }
    return undefined;
  }
  let ino: number | bigint;
  try {
    ino = statSync(w.path).ino;
  } catch {
    return 'removed';
  }
  if (ino !== w.ino) return 'replaced';
  try {
    return fstatSync(w.fd).nlink === 0 ? 'removed' : 'ok';
  } catch {
    return 'removed';
  }
}

export class SqliteStore implements SteeringStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmt: ReturnType<SqliteStore['prepare']>;
  private readonly commitTx: Database.Transaction<(batch: CommitBatch) => CommitResult>;
  /** The latest evidence set: decisions that repeat it reuse its row. */
  private current: { id: number; body: Uint8Array; lastT: number } | undefined;
  /** Evidence sets by id, for rebuilding decisions (a handful are hot). */
  private readonly setCache = new Map<number, Uint8Array>();
  /** The background checkpointer, when there is one. */
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private commits = 0;
  /** The decisions through this id are in `decision_keys` (as this connection last knew it). */
  private keysThrough = 0;
  /** The latest decision's id this connection committed. */
  private lastDecisionId = 0;
  private readonly keyMergeRows: number;
  /** The merge under way: its span of ids (from, to] and its next slice. */
  private keyMerge:
    | {
        from: number;
        to: number;
        slice: number;
        deadline: number;
        /** Merges however few there are (tests). */
        readonly forced: boolean;
        /** Left to another process's merge, or merged already. */
        left: boolean;
      }
    | undefined;
  /** No merge starts before this time (ms): another process's was under way. */
  private keyMergeAfter = 0;
  /**
   * The decisions after `keys_through`, by key, as this connection last read them (for lookups:
   * `readKey`): from `through`, the rows read up to `seen` (its key `seenKey`).
   */
  private tail:
    | { through: number; seen: number; seenKey: bigint; ids: Map<bigint, number[]> }
    | undefined;
  /** Resolves the merge's waiters (tests) when it ends. */
  private keyMergeWaiters: (() => void)[] = [];
  /** Whether the commit under way began writing (it had the write lock). */
  private writing = false;
  /** Where each decision's tail is cut (bound, and so copied, by the insert). */
  private scratch = new Uint8Array(4096);
  /**
   * @internal Whether a commit writes the decision log's pending entries (always, but in the
   * server's bench, which switches it between rounds: `SqliteStoreOptions.logAppend`).
   */
  logAppend: boolean;
  private logStmtCache: ReturnType<SqliteStore['logStatements']> | undefined;
  /**
   * The database file, its `-wal` and its `-shm`, as opened: to notice one removed or replaced
   * (a removed `-wal` takes the commits not yet checkpointed with it at the next open).
   */
  private watched: Watched[] = [];

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.logAppend = options.logAppend ?? true;
    this.keyMergeRows = options.keyMergeRows ?? KEY_MERGE_ROWS;
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('foreign_keys = OFF');
    // Worker processes (`serve --workers N`) share the file: a writer waits for the lock (the
    // group commit, from the event loop: `commit`).
    this.db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    this.migrate();
    const memory = path === ':memory:' || path === '';
    if (!memory && (options.checkpoint ?? 'background') === 'background') {
      this.db.pragma('wal_autocheckpoint = 0');
      this.worker = new Worker(CHECKPOINTER, {
        eval: true,
        workerData: {
          sqlite: createRequire(import.meta.url).resolve('better-sqlite3'),
          path,
          intervalMs: 250,
          restartFrames: options.walRestartFrames ?? WAL_RESTART_FRAMES,
        },
      });
      this.worker.unref();
      // Should it fail, checkpoints fall back to SQLite's own, in the commit.
      const fallBack = (why: unknown): void => {
        if (this.worker === undefined) return; // closed already
        console.error('wai-steering: the checkpointer failed:', why);
        this.worker = undefined;
        if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
      };
      this.worker.on('error', fallBack);
      this.worker.on('message', (m: { failed?: string }) => fallBack(m.failed));
    }
    this.stmt = this.prepare();
    this.loadCurrent();
    this.keysThrough = (this.stmt.keysThrough.get() as number | undefined) ?? 0;
    this.commitTx = this.db.transaction((batch: CommitBatch) => this.write(batch));
    if (!memory) {
      this.watched = [path, `${path}-wal`, `${path}-shm`].map((p) => ({
        path: p,
        fd: undefined,
        ino: undefined,
      }));
      for (const w of this.watched) identity(w);
    }
  }

  /**
   * Whether the database file is still the one opened: `replaced` when another inode sits at the
   * path, `removed` when none does or the open inode has no link left (`fstat` gives `nlink` 0);
   * and likewise its `-wal` and `-shm` (`wal_removed`, `wal_replaced`), once they exist. Always
   * `ok` for `:memory:`.
   */
  fileState(): StoreFileState {
    const [main, ...log] = this.watched;
    if (main === undefined) return 'ok';
    const state = identity(main);
    if (state === 'removed' || state === 'replaced') return state;
    for (const w of log) {
      const s = identity(w);
      if (s === 'removed') return 'wal_removed';
      if (s === 'replaced') return 'wal_replaced';
    }
    return 'ok';
  }

  /**
   * The newest instants the store holds, µs: the latest decision's `t` and the latest `end` of a
   * record that ends at or before `notAfter` (records that end later are not evidence of the
   * clock). `undefined` when none.
   */
  newest(notAfter: bigint): Promise<NewestHeld> {
    return settle(() => this.newestSync(notAfter));
  }

  private newestSync(notAfter: bigint): NewestHeld {
    const d = this.db.prepare('SELECT max(last_t) FROM sets').pluck().get() as number | null;
    const r = this.db
      .prepare('SELECT max("end") FROM records WHERE "end" <= ?')
      .pluck()
      .get(clampU64(notAfter < 0n ? 0n : notAfter)) as number | null;
    return {
      decision: d === null ? undefined : BigInt(d),
      record: r === null ? undefined : BigInt(r),
    };
  }

  /** The key log heads kept (`putBlob('key-log', …)`), in no order. */
  keyLogHeads(): Promise<Uint8Array[]> {
    return settle(() => this.keyLogHeadsSync());
  }

  private keyLogHeadsSync(): Uint8Array[] {
    const rows = this.db
      .prepare("SELECT bytes FROM blobs WHERE kind = 'key-log'")
      .pluck()
      .all() as Buffer[];
    return rows.map(asBytes);
  }

  /**
   * SQLite's `quick_check` on this connection: `[]` when the database is sound, else the problems
   * it names (at most `max`). May take time on a large store: see `store/open.ts`.
   */
  quickCheck(max = 8): string[] {
    const rows = this.db.pragma(`quick_check(${Math.max(1, Math.floor(max))})`, {
      simple: false,
    }) as { quick_check: string }[];
    const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
    return problems;
  }

  private migrate(): void {
    this.db.exec(`
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
        t INTEGER NOT NULL
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
    const row = this.db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as
      | { v: number }
      | undefined;
    if (row === undefined) {
      this.db.prepare("INSERT INTO meta (k, v) VALUES ('schema', ?)").run(SCHEMA_VERSION);
    } else if (row.v === 1 || row.v === 2) {
      if (row.v === 1) this.migrateFrom1();
      this.migrateFrom2();
    } else if (row.v !== SCHEMA_VERSION) {
      throw new StoreSchemaError(
        `the store's schema is version ${row.v}; this server reads version ${SCHEMA_VERSION}`,
      );
    }
    this.db.prepare("INSERT OR IGNORE INTO meta (k, v) VALUES ('keys_through', 0)").run();
    // Until when (ms, the machine's clock) a process's merge of the keys runs: 0 when none does.
    this.db.prepare("INSERT OR IGNORE INTO meta (k, v) VALUES ('keys_merging', 0)").run();
    // The listing by time: `t`, then the row id (the index holds it).
    this.db.exec('CREATE INDEX IF NOT EXISTS decisions_t ON decisions (t)');
  }

  /**
   * Version 1 to 2, in one transaction: each decision's `t`, read from its tail; and every
   * decision held made a pending entry of the log, in the order stored (the log holds every
   * decision the store keeps).
   */
  private migrateFrom1(): void {
    const db = this.db;
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
  private migrateFrom2(): void {
    const db = this.db;
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

  private prepare() {
    const db = this.db;
    return {
      insertRecord: db.prepare(
        'INSERT OR IGNORE INTO records (digest, hop, start, "end", bytes) VALUES (?, ?, ?, ?, ?)',
      ),
      getRecord: db.prepare('SELECT bytes FROM records WHERE digest = ?').pluck(),
      startOf: db.prepare('SELECT start FROM records WHERE digest = ?').pluck(),
      recordsAfter: db.prepare(
        'SELECT digest, hop, bytes FROM records WHERE "end" > ? ORDER BY start',
      ),
      insertSet: db.prepare(
        'INSERT INTO sets (first_decision, last_t, min_start, body) VALUES (?, ?, ?, ?)',
      ),
      touchSet: db.prepare('UPDATE sets SET last_t = ? WHERE id = ?'),
      getSet: db.prepare('SELECT body FROM sets WHERE id = ?').pluck(),
      nextDecisionId: db.prepare('SELECT coalesce(max(id), 0) + 1 FROM decisions').pluck(),
      insertDecision: db.prepare(
        'INSERT INTO decisions (key, set_id, tail, t) VALUES (?, ?, ?, ?)',
      ),
      insertPending: db.prepare('INSERT INTO log_pending (entries) VALUES (?)'),
      // The rows of a key merged into `decision_keys` (those after it: `readKey`).
      getDecisions: db.prepare(
        `SELECT d.id, d.set_id, d.tail FROM decision_keys k JOIN decisions d ON d.id = k.id
           WHERE k.key = @key AND d.key = @key`,
      ),
      getDecisionById: db.prepare(
        'SELECT id, set_id, tail FROM decisions WHERE id = ? AND key = ?',
      ),
      tailSince: db
        .prepare('SELECT id, key FROM decisions WHERE id > ? ORDER BY id')
        .safeIntegers(true),
      keyAt: db.prepare('SELECT key FROM decisions WHERE id = ?').pluck().safeIntegers(true),
      keysThrough: db.prepare("SELECT v FROM meta WHERE k = 'keys_through'").pluck(),
      maxDecisionId: db.prepare('SELECT coalesce(max(id), 0) FROM decisions').pluck(),
      // One slice of a merge: the decisions of ids (from, to] whose key is in [lo, hi), sorted.
      mergeKeys: db.prepare(
        `INSERT OR IGNORE INTO decision_keys (key, id)
           SELECT key, id FROM decisions WHERE id > ? AND id <= ? AND key >= ? AND key < ?
           ORDER BY key, id`,
      ),
      mergeLastKeys: db.prepare(
        `INSERT OR IGNORE INTO decision_keys (key, id)
           SELECT key, id FROM decisions WHERE id > ? AND id <= ? AND key >= ?
           ORDER BY key, id`,
      ),
      // Moved on only from the value the merge began at: a prune that emptied the table (row ids
      // start again from 1) or another process's merge moved it meanwhile.
      setKeysThrough: db.prepare("UPDATE meta SET v = ? WHERE k = 'keys_through' AND v = ?"),
      claimKeyMerge: db.prepare("UPDATE meta SET v = ? WHERE k = 'keys_merging' AND v <= ?"),
      releaseKeyMerge: db.prepare("UPDATE meta SET v = 0 WHERE k = 'keys_merging'"),
      deleteKeysBefore: db.prepare('DELETE FROM decision_keys WHERE id < ?'),
      // In (t, id) order after the cursor (t, id): the index's range on t, then the rows of the
      // cursor's own t that come before it filtered out.
      // Safe integers: the key is a full signed 64-bit integer.
      decisionsAfter: db
        .prepare(
          `SELECT id, key, set_id, tail, t FROM decisions WHERE t >= ? AND (t > ? OR id > ?)
           ORDER BY t, id LIMIT ?`,
        )
        .safeIntegers(true),
      listBlobs: db.prepare('SELECT digest, bytes FROM blobs WHERE kind = ? ORDER BY digest'),
      putBlob: db.prepare('INSERT OR IGNORE INTO blobs (digest, kind, bytes) VALUES (?, ?, ?)'),
      getBlob: db.prepare('SELECT bytes FROM blobs WHERE kind = ? AND digest = ?').pluck(),
      oldestKeptSet: db.prepare(
        'SELECT id, first_decision FROM sets WHERE last_t >= ? ORDER BY id LIMIT 1',
      ),
      deleteDecisionsBefore: db.prepare('DELETE FROM decisions WHERE id < ?'),
      firstKeptTail: db.prepare('SELECT tail FROM decisions ORDER BY id LIMIT 1').pluck(),
      deleteSetsBefore: db.prepare('DELETE FROM sets WHERE id < ?'),
      minNamedStart: db.prepare('SELECT min(min_start) FROM sets').pluck(),
      deleteRecords: db.prepare('DELETE FROM records WHERE "end" < ? AND "end" <= ?'),
      busyNoWait: db.prepare('PRAGMA busy_timeout = 0'),
      busyWait: db.prepare(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`),
      count: {
        records: db.prepare('SELECT count(*) FROM records').pluck(),
        decisions: db.prepare('SELECT count(*) FROM decisions').pluck(),
        sets: db.prepare('SELECT count(*) FROM sets').pluck(),
      },
    };
  }

  commit(batch: CommitBatch): Promise<CommitResult> {
    try {
      return Promise.resolve(this.commitSync(batch, false));
    } catch (e) {
      // Another process (`serve --workers N`) holds the write lock: tried again from the event
      // loop, which serves requests meanwhile, rather than in SQLite's busy handler, which
      // sleeps on the event loop (and waits up to the same 5 s).
      if (isBusy(e)) return this.commitLater(batch, Date.now() + BUSY_WAIT_MS);
      return Promise.reject(e);
    }
  }

  private commitLater(batch: CommitBatch, deadline: number): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        try {
          resolve(this.commitSync(batch, false));
        } catch (e) {
          if (isBusy(e) && Date.now() < deadline) setTimeout(attempt, 1);
          else reject(e);
        }
      };
      setImmediate(attempt);
    });
  }

  /**
   * {@link SqliteStore.commit}, synchronously: the transaction is written when it returns. With
   * `wait` false, the write lock is asked once (no busy wait): `SQLITE_BUSY` when another process
   * holds it.
   */
  private commitSync(batch: CommitBatch, wait = true): CommitResult {
    if (!wait) this.stmt.busyNoWait.get();
    this.writing = false;
    try {
      // IMMEDIATE: the write lock first, so that another process's commit is waited for rather
      // than failing the upgrade of a read snapshot (SQLITE_BUSY_SNAPSHOT).
      const result = this.commitTx.immediate(batch);
      if (this.worker !== undefined && ++this.commits % 256 === 0) this.limitWal();
      if (
        this.keyMerge === undefined &&
        this.lastDecisionId - this.keysThrough >= this.keyMergeRows &&
        Date.now() >= this.keyMergeAfter
      ) {
        this.startKeyMerge();
      }
      return result;
    } catch (e) {
      // The transaction rolled back: the current set may be one it had written. When the write
      // lock was not had (another worker's commit: tried again), nothing was.
      if (this.writing) this.loadCurrent();
      throw e;
    } finally {
      if (!wait) this.stmt.busyWait.get();
    }
  }

  /**
   * Starts a merge of the decisions after `keys_through` into `decision_keys`, a slice a turn;
   * `forced` (tests) merges however few there are.
   */
  private startKeyMerge(forced = false): void {
    this.keyMerge = {
      from: -1,
      to: -1,
      slice: 0,
      deadline: Date.now() + KEY_MERGE_WAIT_MS,
      forced,
      left: false,
    };
    setImmediate(() => this.keyMergeStep());
  }

  /**
   * One transaction of the merge: the first reads its span and claims the merge (`keys_merging`,
   * until its deadline), each writes a slice, the last moves `keys_through` and gives the claim
   * up. The workers of one file merge one at a time: a process that finds another's claim running,
   * or the span merged already, leaves it (and looks again {@link KEY_MERGE_AGAIN_MS} later).
   * Another process holding the write lock: tried again shortly (up to
   * {@link KEY_MERGE_WAIT_MS}); any other failure (the store closed or removed) ends it, and the
   * next commit past the threshold starts another (a claim left by a merge that ended so, or by a
   * process that died, runs out at its deadline).
   */
  private keyMergeStep(): void {
    const m = this.keyMerge;
    if (m === undefined) return;
    if (!this.db.open) {
      this.endKeyMerge();
      return;
    }
    const s = this.stmt;
    s.busyNoWait.get();
    try {
      this.db
        .transaction(() => {
          if (m.slice === 0) {
            m.from = (s.keysThrough.get() as number | undefined) ?? 0;
            m.to = s.maxDecisionId.get() as number;
            if (
              m.to - m.from < (m.forced ? 1 : this.keyMergeRows) ||
              s.claimKeyMerge.run(m.deadline, Date.now()).changes === 0
            ) {
              m.left = true;
              return;
            }
          }
          const lo = KEY_BOUNDS[m.slice]!;
          if (m.slice === KEY_SLICES - 1) s.mergeLastKeys.run(m.from, m.to, lo);
          else s.mergeKeys.run(m.from, m.to, lo, KEY_BOUNDS[m.slice + 1]!);
          if (m.slice === KEY_SLICES - 1) {
            if (s.setKeysThrough.run(m.to, m.from).changes > 0) this.keysThrough = m.to;
            s.releaseKeyMerge.run();
          }
        })
        .immediate();
    } catch (e) {
      if (isBusy(e) && Date.now() < m.deadline) {
        setTimeout(() => this.keyMergeStep(), 2);
        return;
      }
      this.endKeyMerge();
      return;
    } finally {
      if (this.db.open) s.busyWait.get();
    }
    if (m.left) {
      // Merged already (by another process) or being merged by another: where it is now.
      this.keysThrough = m.from;
      this.keyMergeAfter =
        this.lastDecisionId - m.from >= this.keyMergeRows ? Date.now() + KEY_MERGE_AGAIN_MS : 0;
      this.endKeyMerge();
      return;
    }
    if (++m.slice < KEY_SLICES && m.to > m.from) {
      setImmediate(() => this.keyMergeStep());
      return;
    }
    // Another process's merge, or a prune, moved it: this connection reads where it is now.
    if (m.slice < KEY_SLICES || this.keysThrough !== m.to) {
      this.keysThrough = (s.keysThrough.get() as number | undefined) ?? 0;
    }
    this.endKeyMerge();
  }

  private endKeyMerge(): void {
    this.keyMerge = undefined;
    const waiters = this.keyMergeWaiters;
    this.keyMergeWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * @internal For tests: resolves when no merge of `decision_keys` is under way; with `now`,
   * starts one first (whatever the decisions after `keys_through`).
   */
  keyMergeSettled(now = false): Promise<void> {
    if (now && this.keyMerge === undefined) this.startKeyMerge(true);
    if (this.keyMerge === undefined) return Promise.resolve();
    return new Promise((resolve) => this.keyMergeWaiters.push(resolve));
  }

  private loadCurrent(): void {
    const last = this.db
      .prepare('SELECT id, body, last_t FROM sets ORDER BY id DESC LIMIT 1')
      .get() as { id: number; body: Buffer; last_t: number } | undefined;
    this.current =
      last === undefined
        ? undefined
        : { id: last.id, body: asBytes(last.body), lastT: last.last_t };
  }

  private write(batch: CommitBatch): CommitResult {
    this.writing = true;
    const s = this.stmt;
    const inserted: boolean[] = [];
    for (const r of batch.records) {
      const info = s.insertRecord.run(r.digest, r.hop, clampU64(r.start), clampU64(r.end), r.bytes);
      inserted.push(info.changes > 0);
    }
    if (batch.decisions.length > 0) {
      let touched = false;
      const entries = this.logAppend ? new Uint8Array(ENTRY * batch.decisions.length) : undefined;
      let n = 0;
      for (const d of batch.decisions) {
        let tail: Uint8Array;
        let set: Uint8Array | undefined;
        if ('tail' in d) {
          // Cut by the encoder: the set is the current one by identity, or compared once.
          tail = d.tail;
          const cur = this.current;
          set =
            cur !== undefined && (cur.body === d.set || bytesEqual(cur.body, d.set))
              ? undefined
              : d.set;
          if (set === undefined && cur !== undefined && cur.body !== d.set)
            this.current = { ...cur, body: d.set };
        } else {
          if (this.scratch.length < d.bytes.length) this.scratch = new Uint8Array(d.bytes.length);
          const known = d.set !== undefined && d.set === this.current?.body;
          const cut = splitAgainst(d.bytes, this.current?.body, this.scratch, known);
          tail = this.scratch.subarray(0, cut.tailLength);
          set = cut.set;
        }
        const t = tailTimeOf(tail);
        let cur = this.current;
        if (set !== undefined || cur === undefined) {
          if (touched && cur !== undefined) s.touchSet.run(cur.lastT, cur.id);
          // The caller's set object, when given, so that its next decisions are known by identity.
          const body = d.set !== undefined && bytesEqual(d.set, set!) ? d.set : set!;
          const first = s.nextDecisionId.get() as number;
          const info = s.insertSet.run(first, t, this.minStartOf(body), body);
          cur = { id: Number(info.lastInsertRowid), body, lastT: t };
          this.current = cur;
          touched = false;
        } else if (t > cur.lastT) {
          cur.lastT = t;
          touched = true;
        }
        // better-sqlite3 copies a bound blob: the scratch is reused.
        this.lastDecisionId = Number(
          s.insertDecision.run(keyOf(d.digest), cur.id, tail, timeColumn(t)).lastInsertRowid,
        );
        // The decision log's entry: `t` (the tail's first 8 bytes, u64 little-endian), digest.
        if (entries !== undefined) {
          entries.set(tail.subarray(0, 8), n * ENTRY);
          entries.set(d.digest, n * ENTRY + 8);
        }
        n++;
      }
      const cur = this.current;
      if (touched && cur !== undefined) s.touchSet.run(cur.lastT, cur.id);
      // One pending row per commit: the log's append costs one insert per batch.
      if (entries !== undefined) s.insertPending.run(entries);
    }
    return { inserted };
  }

  /** The least `start` of the records a set names (the records are stored before it). */
  private minStartOf(set: Uint8Array): number {
    let min = Number.MAX_SAFE_INTEGER;
    const m = set[96] ?? 0;
    let s = 97;
    for (let p = 0; p < m; p++) {
      const k = set[s + 34] ?? 0;
      for (let j = 0; j < k; j++) {
        const at = s + 35 + 32 * j;
        const start = this.stmt.startOf.get(set.subarray(at, at + 32)) as number | undefined;
        // A record not held (never, as the server names only records it committed) constrains
        // nothing it could prune.
        if (start !== undefined && start < min) min = start;
      }
      s += 35 + 32 * k;
    }
    return min;
  }

  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getRecordSync(digest));
  }

  private getRecordSync(digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const b = this.stmt.getRecord.get(digest) as Buffer | undefined;
    return b === undefined ? undefined : asBytes(b);
  }

  getDecision(digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getDecisionSync(digest));
  }

  private getDecisionSync(digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const key = keyOf(digest);
    const rows = this.readKey(key);
    // A row of this key whose bytes do not rebuild a digest of this key is damage; one that
    // rebuilds another digest of the key is another decision (or a digest no decision has).
    let damaged = false;
    for (const row of rows) {
      const bytes = this.rebuild(row.set_id, asBytes(row.tail));
      if (bytes === undefined) {
        damaged = true;
        continue;
      }
      const d = sha256(bytes.subarray(0, bytes.length - 64));
      if (bytesEqual(d, digest)) return bytes;
      if (keyOf(d) !== key) damaged = true;
    }
    if (damaged) throw new StoreDamagedError('decision', toHex(digest));
    return undefined;
  }

  /**
   * The rows of a key, in one read transaction: those of `decision_keys`, and those after
   * `keys_through` from {@link SqliteStore.tail}, brought up to date first (the rows committed
   * since, by any connection, read by id).
   */
  private readKey(key: bigint): { set_id: number; tail: Buffer }[] {
    const s = this.stmt;
    return this.db.transaction(() => {
      const rows = s.getDecisions.all({ key }) as { id: number; set_id: number; tail: Buffer }[];
      const through = (s.keysThrough.get() as number | undefined) ?? 0;
      let tail = this.tail;
      // Another start: a merge moved keys_through, or a prune took the row last read (a prune of
      // every decision starts the row ids again from 1).
      if (
        tail === undefined ||
        tail.through !== through ||
        (tail.seen > through && s.keyAt.get(tail.seen) !== tail.seenKey)
      ) {
        tail = { through, seen: through, seenKey: 0n, ids: new Map() };
        this.tail = tail;
      }
      for (const r of s.tailSince.iterate(tail.seen) as Iterable<{ id: bigint; key: bigint }>) {
        const id = Number(r.id);
        const held = tail.ids.get(r.key);
        if (held === undefined) tail.ids.set(r.key, [id]);
        else held.push(id);
        tail.seen = id;
        tail.seenKey = r.key;
      }
      for (const id of tail.ids.get(key) ?? []) {
        if (rows.some((r) => r.id === id)) continue;
        const row = s.getDecisionById.get(id, key) as
          | { id: number; set_id: number; tail: Buffer }
          | undefined;
        if (row !== undefined) rows.push(row);
      }
      return rows;
    })();
  }

  /** A decision's bytes from its set and tail; `undefined` when its set is gone or they do not join. */
  private rebuild(setId: number, tail: Uint8Array): Uint8Array | undefined {
    const set = this.setBody(setId);
    if (set === undefined) return undefined;
    try {
      return joinDecision(set, tail);
    } catch {
      return undefined;
    }
  }

  private setBody(id: number): Uint8Array | undefined {
    let body = this.setCache.get(id);
    if (body === undefined) {
      const b = this.stmt.getSet.get(id) as Buffer | undefined;
      if (b === undefined) return undefined;
      body = asBytes(b);
      if (this.setCache.size >= 64) this.setCache.delete(this.setCache.keys().next().value!);
      this.setCache.set(id, body);
    }
    return body;
  }

  async *recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord> {
    yield* this.recordsEndingAfterSync(end);
  }

  private *recordsEndingAfterSync(end: bigint): Iterable<StoredRecord> {
    for (const row of this.stmt.recordsAfter.iterate(clampU64(end < 0n ? 0n : end)) as Iterable<{
      digest: Buffer;
      hop: Buffer;
      bytes: Buffer;
    }>) {
      const bytes = asBytes(row.bytes);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      yield {
        digest: asBytes(row.digest),
        hop: asBytes(row.hop),
        bytes,
        start: view.getBigUint64(69, true),
        end: view.getBigUint64(77, true),
      };
    }
  }

  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<DecisionPage> {
    return settle(() => this.listDecisionsSync(from, to, after, limit));
  }

  /**
   * In (t, id) order: the row ids are the order of the commits, one writer at a time, which is
   * the decision log's order (its pending rows are written in the same transactions), so that
   * decisions of equal `t` are listed in the log's order.
   */
  private listDecisionsSync(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): DecisionPage {
    if (after !== null && (!Number.isSafeInteger(after.id) || after.id < 0 || after.t < 0n)) {
      throw new RangeError('listDecisions: after');
    }
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('listDecisions: limit');
    // The cursor: the last decision listed, or just before the first at `from`.
    const start = clampU64(from < 0n ? 0n : from);
    let cursor =
      after === null || clampU64(after.t) < start
        ? { t: start, id: 0 }
        : { t: clampU64(after.t), id: after.id };
    const decisions: ListedDecision[] = [];
    // Rows are read a page at a time; those before `from` (a `t` past the column's range) are
    // skipped.
    for (;;) {
      const rows = this.stmt.decisionsAfter.all(cursor.t, cursor.t, cursor.id, limit) as {
        id: bigint;
        key: bigint;
        set_id: bigint;
        tail: Buffer;
        t: number;
      }[];
      for (const row of rows) {
        const tail = asBytes(row.tail);
        if (tail.length < 8) throw damagedRow(row.key);
        const t = new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
        if (t >= to) return { decisions, next: null };
        cursor = { t: Number(row.t), id: Number(row.id) };
        if (t < from) continue;
        // Every row is listed with the digest of its bytes: one that does not rebuild the digest
        // it is kept under is damage, never listed under a digest the server did not sign.
        const bytes = this.rebuild(Number(row.set_id), tail);
        const digest =
          bytes === undefined ? undefined : sha256(bytes.subarray(0, bytes.length - 64));
        if (bytes === undefined || digest === undefined || keyOf(digest) !== row.key) {
          throw damagedRow(row.key);
        }
        decisions.push({ digest, t, bytes });
        if (decisions.length === limit) {
          return { decisions, next: { t: BigInt(cursor.t), xid: 0n, id: cursor.id } };
        }
      }
      if (rows.length < limit) return { decisions, next: null };
    }
  }

  listBlobs(kind: BlobKind): Promise<{ digest: Uint8Array; bytes: Uint8Array }[]> {
    return settle(() =>
      (this.stmt.listBlobs.all(kind) as { digest: Buffer; bytes: Buffer }[]).map((r) => ({
        digest: asBytes(r.digest),
        bytes: asBytes(r.bytes),
      })),
    );
  }

  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void> {
    return settle(() => {
      this.stmt.putBlob.run(digest, kind, bytes);
    });
  }

  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getBlobSync(kind, digest));
  }

  putCapacityReport(room: Uint8Array, r: StoredCapacityReport): Promise<boolean> {
    return settle(
      () =>
        this.db
          .prepare(
            `INSERT INTO capacity_reports (room, pathway, hop, t, jws) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (room, pathway, hop) DO UPDATE SET t = excluded.t, jws = excluded.jws
             WHERE capacity_reports.t < excluded.t`,
          )
          .run(room, r.pathway, r.hop, r.t, r.jws).changes === 1,
    );
  }

  capacityReports(room: Uint8Array): Promise<StoredCapacityReport[]> {
    return settle(() =>
      (
        this.db
          .prepare('SELECT pathway, hop, t, jws FROM capacity_reports WHERE room = ?')
          .safeIntegers(true)
          .all(room) as { pathway: string; hop: string; t: bigint; jws: string }[]
      ).map((r) => ({ pathway: r.pathway, hop: r.hop, t: r.t, jws: r.jws })),
    );
  }

  claimPolicy(room: Uint8Array, c: PolicyClaim): Promise<boolean> {
    return settle(() =>
      this.db
        .transaction(() => {
          const won =
            this.db
              .prepare(
                `INSERT OR IGNORE INTO policy_rotations (room, seq, digest, template, at, by)
               VALUES (?, ?, ?, ?, ?, ?)`,
              )
              .run(room, c.seq, c.digest, c.template, c.at, c.by).changes === 1;
          if (won) this.stmt.putBlob.run(c.digest, 'policy', c.bytes);
          return won;
        })
        .immediate(),
    );
  }

  policyInForce(room: Uint8Array): Promise<PolicyClaim | undefined> {
    return settle(() => {
      const r = this.db
        .prepare(
          `SELECT r.seq, r.digest, r.template, r.at, r.by, b.bytes FROM policy_rotations r
           JOIN blobs b ON b.kind = 'policy' AND b.digest = r.digest
           WHERE r.room = ? ORDER BY r.seq DESC LIMIT 1`,
        )
        .safeIntegers(true)
        .get(room) as
        | { seq: bigint; digest: Buffer; template: Buffer; at: bigint; by: string; bytes: Buffer }
        | undefined;
      if (r === undefined) return undefined;
      return {
        seq: Number(r.seq),
        digest: asBytes(r.digest),
        bytes: asBytes(r.bytes),
        template: asBytes(r.template),
        at: r.at,
        by: r.by === 'live' ? 'live' : 'operator',
      };
    });
  }

  private getBlobSync(kind: BlobKind, digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const b = this.stmt.getBlob.get(kind, digest) as Buffer | undefined;
    return b === undefined ? undefined : asBytes(b);
  }

  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    return settle(() => this.pruneSync(recordsBefore, decisionsBefore));
  }

  /**
   * Removes the claims of the order of policies that a later claim replaced more than
   * {@link POLICY_LAG_US} before the oldest kept decision (no kept decision, nor one an instance
   * lagging behind the order made, names their policy), and the bytes of the live policies among
   * them that no remaining claim names. An operator's policies (few) are kept.
   */
  private prunePolicies(oldestKept: bigint): void {
    const before = oldestKept - POLICY_LAG_US;
    if (before <= 0n) return;
    const gone = this.db
      .prepare(
        `SELECT r.room, r.seq, r.digest, r.by FROM policy_rotations r
         JOIN policy_rotations n ON n.room = r.room AND n.seq = r.seq + 1
         WHERE n.at < ?`,
      )
      .safeIntegers(true)
      .all(clampU64(before)) as { room: Buffer; seq: bigint; digest: Buffer; by: string }[];
    const removeRow = this.db.prepare('DELETE FROM policy_rotations WHERE room = ? AND seq = ?');
    const removeBlob = this.db.prepare(
      `DELETE FROM blobs WHERE kind = 'policy' AND digest = ? AND NOT EXISTS
         (SELECT 1 FROM policy_rotations WHERE digest = ? OR template = ?)`,
    );
    for (const g of gone) removeRow.run(g.room, g.seq);
    for (const g of gone) if (g.by === 'live') removeBlob.run(g.digest, g.digest, g.digest);
  }

  private pruneSync(recordsBefore: bigint, decisionsBefore: bigint): PruneResult {
    const prune = this.db.transaction((): PruneResult => {
      const s = this.stmt;
      const kept = s.oldestKeptSet.get(clampU64(decisionsBefore < 0n ? 0n : decisionsBefore)) as
        | { id: number; first_decision: number }
        | undefined;
      let decisions: number;
      let sets: number;
      if (kept === undefined) {
        // No decision is kept: every set goes, the current one included.
        decisions = this.db.prepare('DELETE FROM decisions').run().changes;
        sets = this.db.prepare('DELETE FROM sets').run().changes;
        // Row ids start again from 1: every one after `keys_through` again.
        this.db.prepare('DELETE FROM decision_keys').run();
        this.db.prepare("UPDATE meta SET v = 0 WHERE k = 'keys_through'").run();
        this.keysThrough = 0;
        this.lastDecisionId = 0;
        this.current = undefined;
      } else {
        decisions = s.deleteDecisionsBefore.run(kept.first_decision).changes;
        s.deleteKeysBefore.run(kept.first_decision);
        sets = s.deleteSetsBefore.run(kept.id).changes;
      }
      if (sets > 0) this.setCache.clear();
      // §8.4: a record named by a kept decision stays. Every record a set names starts at or
      // after its min_start, so one that ends at or before the least min_start is named by none.
      const minNamed = (s.minNamedStart.get() as number | null) ?? Number.MAX_SAFE_INTEGER;
      const records = s.deleteRecords.run(
        clampU64(recordsBefore < 0n ? 0n : recordsBefore),
        minNamed,
      ).changes;
      // The order of policies, and the live policies no kept decision can name (§8.4).
      const first = s.firstKeptTail.get() as Buffer | undefined;
      const oldestKept =
        first === undefined
          ? decisionsBefore
          : new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
      this.prunePolicies(oldestKept);
      return { records, decisions, sets };
    });
    return prune.immediate();
  }

  // The decision log (`store.ts`, `LogReads` and `LogWrites`).

  private logStatements() {
    const db = this.db;
    const big = <T extends Database.Statement>(st: T): T => st.safeIntegers(true) as T;
    return {
      head: big(db.prepare('SELECT origin, size, root, min_index FROM log_head WHERE id = 1')),
      begin: db.prepare(
        'INSERT OR IGNORE INTO log_head (id, origin, size, root, min_index) VALUES (1, ?, 0, ?, 0)',
      ),
      lease: db.prepare(
        `INSERT INTO log_lease (id, holder, until) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, until = excluded.until
         WHERE log_lease.holder = excluded.holder OR log_lease.until < ?`,
      ),
      release: db.prepare('DELETE FROM log_lease WHERE id = 1 AND holder = ?'),
      pending: db.prepare('SELECT id, entries FROM log_pending ORDER BY id'),
      addKey: db.prepare('INSERT OR IGNORE INTO log_keys (t, key, idx) VALUES (?, ?, ?)'),
      addKeys: db.prepare(
        `INSERT OR IGNORE INTO log_keys (t, key, idx) VALUES ${Array.from(
          { length: KEYS_AT_ONCE },
          () => '(?, ?, ?)',
        ).join(', ')}`,
      ),
      savepoint: db.prepare('SAVEPOINT log_keys'),
      releaseSavepoint: db.prepare('RELEASE log_keys'),
      rollbackTo: db.prepare('ROLLBACK TO log_keys'),
      addMoreKey: db.prepare('INSERT INTO log_keys_more (t, key, idx) VALUES (?, ?, ?)'),
      keyIdx: big(
        db.prepare(
          `SELECT idx FROM log_keys WHERE t = ? AND key = ?
           UNION ALL SELECT idx FROM log_keys_more WHERE t = ? AND key = ?`,
        ),
      ).pluck(),
      dropKey: db.prepare('DELETE FROM log_keys WHERE t = ? AND key = ? AND idx = ?'),
      dropMoreKey: db.prepare('DELETE FROM log_keys_more WHERE t = ? AND key = ? AND idx = ?'),
      bundle: db.prepare('SELECT data FROM log_bundles WHERE idx = ?').pluck(),
      bundles: big(
        db.prepare('SELECT idx, data FROM log_bundles WHERE idx >= ? AND idx < ? ORDER BY idx'),
      ),
      putBundle: db.prepare('INSERT OR REPLACE INTO log_bundles (idx, data) VALUES (?, ?)'),
      tile: db.prepare('SELECT data FROM log_tiles WHERE level = ? AND idx = ?').pluck(),
      putTile: db.prepare('INSERT OR REPLACE INTO log_tiles (level, idx, data) VALUES (?, ?, ?)'),
      putCheckpoint: db.prepare(
        `INSERT INTO log_checkpoints (size, issued, text) VALUES (?, ?, ?)
         ON CONFLICT (size) DO UPDATE SET issued = excluded.issued, text = excluded.text`,
      ),
      setHead: db.prepare('UPDATE log_head SET size = ?, root = ? WHERE id = 1'),
      dropPending: db.prepare('DELETE FROM log_pending WHERE id <= ?'),
      latest: big(
        db.prepare('SELECT size, issued, text FROM log_checkpoints ORDER BY size DESC LIMIT 1'),
      ),
      checkpoints: big(
        db.prepare(
          'SELECT size, issued, text FROM log_checkpoints WHERE size >= ? ORDER BY size LIMIT ?',
        ),
      ),
      cosign: db.prepare('UPDATE log_checkpoints SET text = ? WHERE size = ?'),
    };
  }

  private get logStmt(): ReturnType<SqliteStore['logStatements']> {
    this.logStmtCache ??= this.logStatements();
    return this.logStmtCache;
  }

  logHead(): Promise<LogHead | undefined> {
    return settle(() => this.logHeadSync());
  }

  private logHeadSync(): LogHead | undefined {
    const r = this.logStmt.head.get() as
      | { origin: string; size: bigint; root: Buffer; min_index: bigint }
      | undefined;
    if (r === undefined) return undefined;
    return {
      origin: r.origin,
      size: asU64(r.size),
      root: asBytes(r.root),
      minIndex: asU64(r.min_index),
    };
  }

  beginLog(origin: string): Promise<string> {
    return settle(() => {
      this.logStmt.begin.run(origin, sha256(new Uint8Array(0)));
      return this.logHeadSync()!.origin;
    });
  }

  /** The lease, by the wall clock (the workers of one file share one machine's clock). */
  takeLogLease(holder: string, ms: number): Promise<boolean> {
    return settle(() => {
      const now = Date.now();
      return this.logStmt.lease.run(holder, now + ms, now).changes === 1;
    });
  }

  releaseLogLease(holder: string): Promise<void> {
    return settle(() => {
      this.logStmt.release.run(holder);
    });
  }

  integrateLog(
    plan: (input: LogPlanInput) => LogPlan,
    options: { readonly maxEntries: number; readonly maxDelayMs: number },
  ): Promise<LogIntegrated | undefined> {
    return settle(() =>
      this.db.transaction(() => this.integrateSync(plan, options.maxEntries)).immediate(),
    );
  }

  /**
   * The integration's transaction (IMMEDIATE: the write lock held throughout, so that nothing
   * commits meanwhile and every pending row is settled). Pending rows in the order of their ids,
   * which is the order of the commits.
   */
  private integrateSync(
    plan: (input: LogPlanInput) => LogPlan,
    maxEntries: number,
  ): LogIntegrated | undefined {
    const st = this.logStmt;
    const head = this.logHeadSync();
    if (head === undefined) throw new Error('the decision log has not begun (beginLog)');
    const latest = st.latest.get() as { size: bigint } | undefined;
    const checkpointed = latest === undefined ? undefined : asU64(latest.size);
    const taken: Uint8Array[] = [];
    let last: number | undefined;
    let more = false;
    let count = 0;
    for (const row of st.pending.iterate() as Iterable<{ id: number; entries: Buffer }>) {
      if (last !== undefined && count >= maxEntries) {
        more = true;
        break;
      }
      last = row.id;
      taken.push(asBytes(row.entries));
      count += row.entries.length / ENTRY;
    }
    if (last === undefined && checkpointed === head.size) return undefined;
    const entries = this.admit(taken, head.size);
    const edge = this.edgeOf(head.size);
    const p = plan({ head, entries, edge, complete: !more, checkpointed });
    if (p.size !== head.size + BigInt(entries.length)) {
      throw new TypeError('integrateLog: the plan is not of the entries given');
    }
    for (const b of p.bundles) st.putBundle.run(asInt64(b.index), b.data);
    for (const tile of p.tiles) st.putTile.run(tile.level, asInt64(tile.index), tile.data);
    let checkpoint: StoredCheckpoint | undefined;
    if (p.checkpoint !== undefined) {
      checkpoint = { size: p.size, issued: p.checkpoint.issued, text: p.checkpoint.text };
      st.putCheckpoint.run(asInt64(p.size), asInt64(p.checkpoint.issued), p.checkpoint.text);
    }
    st.setHead.run(asInt64(p.size), p.root);
    if (last !== undefined) st.dropPending.run(last);
    return {
      appended: entries.length,
      size: p.size,
      more,
      ...(checkpoint === undefined ? {} : { checkpoint }),
    };
  }

  /**
   * The entries of the pending rows, in order, each given the next index under its `t` and its
   * digest's first 8 bytes (one insert of `log_keys` an entry, which tells a digest already
   * logged): a (t, key) held already is a digest the log holds (left out) or another digest of
   * the same t and first 8 bytes (kept, its index in `log_keys_more`).
   */
  private admit(rows: readonly Uint8Array[], size: bigint): Uint8Array[] {
    const st = this.logStmt;
    const all: Uint8Array[] = [];
    for (const row of rows) {
      for (let at = 0; at + ENTRY <= row.length; at += ENTRY)
        all.push(row.subarray(at, at + ENTRY));
    }
    const out: Uint8Array[] = [];
    const params: (number | bigint)[] = new Array(3 * KEYS_AT_ONCE);
    for (let from = 0; from < all.length; from += KEYS_AT_ONCE) {
      const chunk = all.slice(from, from + KEYS_AT_ONCE);
      // A whole chunk at once, in one statement, when none of it is held already (the rule):
      // under a savepoint, undone when one was, and that chunk taken one entry at a time.
      if (chunk.length === KEYS_AT_ONCE) {
        const first = size + BigInt(out.length);
        // The indexes as numbers while they are exact (every log of this era), else bigints.
        const from = first + BigInt(KEYS_AT_ONCE) <= INT_MAX ? Number(first) : undefined;
        for (let j = 0; j < KEYS_AT_ONCE; j++) {
          const e = chunk[j]!;
          params[3 * j] = entryTime(e);
          params[3 * j + 1] = logKeyOf(e);
          params[3 * j + 2] = from === undefined ? indexColumn(first + BigInt(j)) : from + j;
        }
        st.savepoint.run();
        if (st.addKeys.run(...params).changes === KEYS_AT_ONCE) {
          st.releaseSavepoint.run();
          out.push(...chunk);
          continue;
        }
        st.rollbackTo.run();
        st.releaseSavepoint.run();
      }
      for (const e of chunk) {
        const digest = e.subarray(8);
        const t = entryTime(e);
        const key = logKeyOf(e);
        const idx = indexColumn(size + BigInt(out.length));
        if (st.addKey.run(t, key, idx).changes === 1) {
          out.push(e);
          continue;
        }
        const held = (st.keyIdx.all(t, key, t, key) as bigint[]).map(asU64);
        if (held.some((i) => bytesEqual(this.digestAt(i, size, out), digest))) continue;
        st.addMoreKey.run(t, key, idx);
        out.push(e);
      }
    }
    return out;
  }

  /** The digest of entry `index`: from its bundle, or from the batch being admitted. */
  private digestAt(index: bigint, size: bigint, batch: readonly Uint8Array[]): Uint8Array {
    if (index >= size) return batch[Number(index - size)]!.subarray(8);
    const data = this.logStmt.bundle.get(asInt64(index >> 8n)) as Buffer | undefined;
    const entry = data === undefined ? undefined : bundleEntry(asBytes(data), Number(index & 255n));
    return entry?.subarray(8) ?? new Uint8Array(0);
  }

  /** The right edge of the log of `size` entries, as stored. */
  private edgeOf(size: bigint): LogPlanInput['edge'] {
    const st = this.logStmt;
    let entries: Uint8Array[] = [];
    if (size % 256n !== 0n) {
      const data = st.bundle.get(asInt64(size >> 8n)) as Buffer | undefined;
      entries = data === undefined ? [] : bundleEntries(asBytes(data));
    }
    const tiles = new Map<number, Uint8Array>();
    for (let level = 1; size >> BigInt(8 * level) > 0n; level++) {
      const width = Number((size >> BigInt(8 * level)) & 255n);
      if (width === 0) continue;
      const data = st.tile.get(level, asInt64(size >> BigInt(8 * (level + 1)))) as
        | Buffer
        | undefined;
      if (data === undefined || data.length < width * 32) {
        throw new Error(
          `the decision log's tile ${level}/${size >> BigInt(8 * (level + 1))} is missing`,
        );
      }
      tiles.set(level, asBytes(data).subarray(0, width * 32));
    }
    return { entries, tiles };
  }

  addLogCosignatures(size: bigint, text: string): Promise<void> {
    return settle(() => {
      this.logStmt.cosign.run(text, asInt64(size));
    });
  }

  pruneLog(
    issuedBefore: bigint,
  ): Promise<{ minIndex: bigint; entries: number; checkpoints: number }> {
    return settle(() =>
      this.db
        .transaction(() => {
          const head = this.logHeadSync();
          if (head === undefined) return { minIndex: 0n, entries: 0, checkpoints: 0 };
          const db = this.db;
          // The newest checkpoint issued before the cutoff, the latest of all kept whatever its age.
          const cut = db
            .prepare(
              `SELECT max(size) FROM log_checkpoints WHERE issued < ?
                 AND size < (SELECT max(size) FROM log_checkpoints)`,
            )
            .safeIntegers(true)
            .pluck()
            .get(asInt64(issuedBefore)) as bigint | null;
          if (cut === null) return { minIndex: head.minIndex, entries: 0, checkpoints: 0 };
          // Never lowered (bigints: no Math.max).
          let minIndex = head.minIndex;
          if (asU64(cut) > minIndex) minIndex = asU64(cut);
          const checkpoints = db
            .prepare('DELETE FROM log_checkpoints WHERE size <= ?')
            .run(cut).changes;
          // The bundles wholly below the minimum index, and their entries' keys (tlog-tiles,
          // Pruning: the level-0 tiles derived from them go too; level 1 keeps their hashes).
          const st = this.logStmt;
          let entries = 0;
          const below = asInt64(minIndex >> 8n);
          const lowest = db
            .prepare('SELECT min(idx) FROM log_bundles')
            .safeIntegers(true)
            .pluck()
            .get() as bigint | null;
          // A page of bundles at a time (a statement cannot run while another iterates).
          for (let from = lowest ?? below; from < below; from += 64n) {
            const page = st.bundles.all(from, from + 64n < below ? from + 64n : below) as {
              idx: bigint;
              data: Buffer;
            }[];
            for (const b of page) {
              bundleEntries(asBytes(b.data)).forEach((e, i) => {
                const key = logKeyOf(e);
                const t = entryTime(e);
                const idx = indexColumn((asU64(b.idx) << 8n) + BigInt(i));
                if (st.dropKey.run(t, key, idx).changes === 0) st.dropMoreKey.run(t, key, idx);
                entries++;
              });
            }
          }
          db.prepare('DELETE FROM log_bundles WHERE idx < ?').run(asInt64(minIndex >> 8n));
          db.prepare('UPDATE log_head SET min_index = ? WHERE id = 1').run(asInt64(minIndex));
          return { minIndex, entries, checkpoints };
        })
        .immediate(),
    );
  }

  latestLogCheckpoint(): Promise<StoredCheckpoint | undefined> {
    return settle(() => {
      const r = this.logStmt.latest.get() as
        | { size: bigint; issued: bigint; text: string }
        | undefined;
      return r === undefined ? undefined : checkpointOf(r);
    });
  }

  logCheckpoints(fromSize: bigint, limit: number): Promise<StoredCheckpoint[]> {
    return settle(() =>
      (
        this.logStmt.checkpoints.all(asInt64(fromSize), limit) as {
          size: bigint;
          issued: bigint;
          text: string;
        }[]
      ).map(checkpointOf),
    );
  }

  logEntries(from: bigint, to: bigint): Promise<LogEntryRow[]> {
    return settle(() => {
      const lo = clampIndex(from);
      const hi = clampIndex(to);
      const out: LogEntryRow[] = [];
      if (hi <= lo) return out;
      for (const b of this.logStmt.bundles.iterate(lo >> 8n, ((hi - 1n) >> 8n) + 1n) as Iterable<{
        idx: bigint;
        data: Buffer;
      }>) {
        const first = asU64(b.idx) << 8n;
        bundleEntries(asBytes(b.data)).forEach((e, i) => {
          const index = first + BigInt(i);
          if (index < lo || index >= hi) return;
          out.push({
            index,
            t: new DataView(e.buffer, e.byteOffset, 8).getBigUint64(0, true),
            digest: e.slice(8),
          });
        });
      }
      return out;
    });
  }

  logIndexOf(t: bigint, digest: Uint8Array): Promise<bigint | undefined> {
    return settle(() => {
      if (digest.length !== 32) return undefined;
      const head = this.logHeadSync();
      if (head === undefined) return undefined;
      const entry = new Uint8Array(ENTRY);
      new DataView(entry.buffer).setBigUint64(0, t, true);
      entry.set(digest, 8);
      const at = entryTime(entry);
      const key = logKeyOf(entry);
      for (const i of (this.logStmt.keyIdx.all(at, key, at, key) as bigint[]).map(asU64)) {
        if (i < head.size && bytesEqual(this.digestAt(i, head.size, []), digest)) return i;
      }
      return undefined;
    });
  }

  logTile(level: number, index: bigint): Promise<Uint8Array | undefined> {
    return settle(() => {
      const b = this.logStmt.tile.get(level, clampIndex(index)) as Buffer | undefined;
      return b === undefined ? undefined : asBytes(b);
    });
  }

  stats(): Promise<StoreStats> {
    return settle(() => this.statsSync());
  }

  private statsSync(): StoreStats {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    return {
      records: this.stmt.count.records.get() as number,
      decisions: this.stmt.count.decisions.get() as number,
      sets: this.stmt.count.sets.get() as number,
      bytes: (pages - free) * pageSize,
    };
  }

  /** A WAL the checkpointer did not keep up with is checkpointed here (rare). */
  private limitWal(): void {
    let size = 0;
    try {
      size = statSync(`${this.path}-wal`).size;
    } catch {
      return;
    }
    if (size <= WAL_LIMIT) return;
    // Without waiting: a reader holding an old snapshot (a long export) would hold the event loop.
    this.stmt.busyNoWait.get();
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Tried again 256 commits later.
    } finally {
      this.stmt.busyWait.get();
    }
  }

  /** Runs a WAL checkpoint (TRUNCATE): the bench measures the database file after it. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * Closes the store. The checkpointer is told to close its connection (a checkpoint under way
   * finishes first); the promise resolves once it has.
   */
  close(): Promise<void> {
    this.closeSync();
    return this.exited;
  }

  /** Closes the database now; the checkpointer exits after ({@link SqliteStore.whenClosed}). */
  private closeSync(): void {
    for (const w of this.watched) {
      if (w.fd === undefined) continue;
      try {
        closeFd(w.fd);
      } catch {
        // closed already
      }
      w.fd = undefined;
    }
    this.watched = [];
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) {
      this.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Keep the process alive until the checkpointer has closed its connection.
      worker.ref();
      worker.postMessage('close');
    }
    if (this.db.open) this.db.close();
  }

  /** Resolves once the store and its checkpointer are closed. */
  whenClosed(): Promise<void> {
    return this.exited;
  }
}
