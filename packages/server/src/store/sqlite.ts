/**
 * The embedded store: SQLite through `better-sqlite3`, in WAL mode.
 *
 * - `records`: each accepted `WMH1` by digest, with its hop, `start` and `end` for window queries
 *   and pruning.
 * - `sets` and `decisions`: compact decisions (`compact.ts`). A decision row holds its tail (what
 *   differs per decision, about 135 bytes for 3 pathways) and the id of its window's evidence set;
 *   its digest is not stored, only its first 8 bytes as an indexed integer: `getDecision` rebuilds
 *   the bytes of each row of that key and returns the one whose SHA-256 is the digest, so that a
 *   decision served is always checked against the digest it is asked by.
 * - `blobs`: policies, room descriptors and key log heads, by digest.
 *
 * The store interface is asynchronous (`store.ts`); SQLite here is synchronous inside, each
 * method answering in a settled promise. One cohesive thing over 400 lines: the schema, its
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
import { bytesEqual, sha256 } from '@wai-steering/wire';
import Database from 'better-sqlite3';
import { joinDecision, splitAgainst } from './compact.js';
import {
  type BlobKind,
  type CommitBatch,
  type CommitResult,
  type DecisionPage,
  type ListedDecision,
  type NewestHeld,
  POLICY_LAG_US,
  type PolicyClaim,
  type PruneResult,
  type SteeringStore,
  type StoredCapacityReport,
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
const run = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
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

/** Past this size the WAL is checkpointed inline (RESTART), whatever the worker managed. */
const WAL_LIMIT = 256 * 1024 * 1024;

const SCHEMA_VERSION = 1;
/** SQLite integers are signed 64-bit: the columns that index a u64 clamp it (the bytes are exact). */
const INT_MAX = BigInt(Number.MAX_SAFE_INTEGER);

function clampU64(v: bigint): number {
  return Number(v > INT_MAX ? INT_MAX : v);
}

/** The first 8 bytes of a digest as a signed 64-bit integer: the decisions' lookup key. */
function keyOf(digest: Uint8Array): bigint {
  return new DataView(digest.buffer, digest.byteOffset, 8).getBigInt64(0, false);
}

/** `t` of a tail (its first 8 bytes, u64), µs; exact below 2^53. */
function tailTimeOf(tail: Uint8Array): number {
  return Number(new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true));
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

/** What sits at the store's path while the server runs (see {@link SqliteStore.fileState}). */
export type StoreFileState = 'ok' | 'removed' | 'replaced';

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
  /** Where each decision's tail is cut (bound, and so copied, by the insert). */
  private scratch = new Uint8Array(4096);
  /** A descriptor of the database file as opened, and its inode: to notice it removed or replaced. */
  private watchFd: number | undefined;
  private watchIno: number | bigint | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
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
    this.commitTx = this.db.transaction((batch: CommitBatch) => this.write(batch));
    if (!memory) {
      try {
        this.watchFd = openSync(path, 'r');
        this.watchIno = fstatSync(this.watchFd).ino;
      } catch {
        this.watchFd = undefined;
      }
    }
  }

  /**
   * Whether the database file is still the one opened: `replaced` when another inode sits at the
   * path, `removed` when none does or the open inode has no link left (`fstat` gives `nlink` 0).
   * Always `ok` for `:memory:`.
   */
  fileState(): StoreFileState {
    if (this.watchFd === undefined) return 'ok';
    let ino: number | bigint;
    try {
      ino = statSync(this.path).ino;
    } catch {
      return 'removed';
    }
    if (ino !== this.watchIno) return 'replaced';
    try {
      return fstatSync(this.watchFd).nlink === 0 ? 'removed' : 'ok';
    } catch {
      return 'removed';
    }
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
        tail BLOB NOT NULL
      );
      CREATE INDEX IF NOT EXISTS decisions_key ON decisions (key);
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
    `);
    const row = this.db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as
      | { v: number }
      | undefined;
    if (row === undefined) {
      this.db.prepare("INSERT INTO meta (k, v) VALUES ('schema', ?)").run(SCHEMA_VERSION);
    } else if (row.v !== SCHEMA_VERSION) {
      throw new StoreSchemaError(
        `the store's schema is version ${row.v}; this server reads version ${SCHEMA_VERSION}`,
      );
    }
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
      insertDecision: db.prepare('INSERT INTO decisions (key, set_id, tail) VALUES (?, ?, ?)'),
      getDecisions: db.prepare('SELECT set_id, tail FROM decisions WHERE key = ?'),
      firstDecisionFrom: db
        .prepare('SELECT first_decision FROM sets WHERE last_t >= ? ORDER BY id LIMIT 1')
        .pluck(),
      decisionsAfter: db.prepare(
        'SELECT id, set_id, tail FROM decisions WHERE id > ? ORDER BY id LIMIT ?',
      ),
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
    try {
      // IMMEDIATE: the write lock first, so that another process's commit is waited for rather
      // than failing the upgrade of a read snapshot (SQLITE_BUSY_SNAPSHOT).
      const result = this.commitTx.immediate(batch);
      if (this.worker !== undefined && ++this.commits % 256 === 0) this.limitWal();
      return result;
    } catch (e) {
      // The transaction rolled back: the current set may be one it had written.
      this.loadCurrent();
      throw e;
    } finally {
      if (!wait) this.stmt.busyWait.get();
    }
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
    const s = this.stmt;
    const inserted: boolean[] = [];
    for (const r of batch.records) {
      const info = s.insertRecord.run(r.digest, r.hop, clampU64(r.start), clampU64(r.end), r.bytes);
      inserted.push(info.changes > 0);
    }
    if (batch.decisions.length > 0) {
      let touched = false;
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
        s.insertDecision.run(keyOf(d.digest), cur.id, tail);
      }
      const cur = this.current;
      if (touched && cur !== undefined) s.touchSet.run(cur.lastT, cur.id);
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
    const rows = this.stmt.getDecisions.all(keyOf(digest)) as { set_id: number; tail: Buffer }[];
    for (const row of rows) {
      const set = this.setBody(row.set_id);
      if (set === undefined) continue;
      const bytes = joinDecision(set, asBytes(row.tail));
      if (bytesEqual(sha256(bytes.subarray(0, bytes.length - 64)), digest)) return bytes;
    }
    return undefined;
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

  listDecisions(from: bigint, to: bigint, after: number, limit: number): Promise<DecisionPage> {
    return settle(() => this.listDecisionsSync(from, to, after, limit));
  }

  private listDecisionsSync(from: bigint, to: bigint, after: number, limit: number): DecisionPage {
    if (!Number.isSafeInteger(after) || after < 0) throw new RangeError('listDecisions: after');
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('listDecisions: limit');
    // The first decision of the first set still in use at `from`: every decision before it is
    // earlier (the sets' spans follow one another).
    const start = this.stmt.firstDecisionFrom.get(clampU64(from < 0n ? 0n : from)) as
      | number
      | undefined;
    if (start === undefined) return { decisions: [], next: null };
    let cursor = Math.max(after, start - 1);
    const decisions: ListedDecision[] = [];
    // Rows are read a page at a time; those before `from` are skipped.
    for (;;) {
      const rows = this.stmt.decisionsAfter.all(cursor, limit) as {
        id: number;
        set_id: number;
        tail: Buffer;
      }[];
      for (const row of rows) {
        const tail = asBytes(row.tail);
        const t = new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true);
        if (t >= to) return { decisions, next: null };
        cursor = row.id;
        if (t < from) continue;
        const set = this.setBody(row.set_id);
        if (set === undefined) continue;
        const bytes = joinDecision(set, tail);
        decisions.push({ digest: sha256(bytes.subarray(0, bytes.length - 64)), t, bytes });
        if (decisions.length === limit) return { decisions, next: cursor };
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
        this.current = undefined;
      } else {
        decisions = s.deleteDecisionsBefore.run(kept.first_decision).changes;
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
    if (size > WAL_LIMIT) this.db.pragma('wal_checkpoint(RESTART)');
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
    if (this.watchFd !== undefined) {
      try {
        closeFd(this.watchFd);
      } catch {
        // closed already
      }
      this.watchFd = undefined;
    }
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
