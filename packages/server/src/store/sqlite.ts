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
import { hash } from 'node:crypto';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { joinDecision, splitAgainst } from './compact.js';
import type {
  BlobKind,
  CommitBatch,
  CommitResult,
  PruneResult,
  SteeringStore,
  StoredRecord,
  StoreStats,
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

function sha256(data: Uint8Array): Buffer {
  return hash('sha256', data, 'buffer');
}

/** `t` of a tail (its first 8 bytes, u64), µs; exact below 2^53. */
function tailTimeOf(tail: Uint8Array): number {
  return Number(new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true));
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
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

export class SqliteStore implements SteeringStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stmt: ReturnType<SqliteStore['prepare']>;
  private readonly commitTx: (batch: CommitBatch) => CommitResult;
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

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('foreign_keys = OFF');
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
    `);
    const row = this.db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as
      | { v: number }
      | undefined;
    if (row === undefined) {
      this.db.prepare("INSERT INTO meta (k, v) VALUES ('schema', ?)").run(SCHEMA_VERSION);
    } else if (row.v !== SCHEMA_VERSION) {
      throw new Error(`${this.path}: store schema ${row.v}, this server reads ${SCHEMA_VERSION}`);
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
      putBlob: db.prepare('INSERT OR IGNORE INTO blobs (digest, kind, bytes) VALUES (?, ?, ?)'),
      getBlob: db.prepare('SELECT bytes FROM blobs WHERE kind = ? AND digest = ?').pluck(),
      oldestKeptSet: db.prepare(
        'SELECT id, first_decision FROM sets WHERE last_t >= ? ORDER BY id LIMIT 1',
      ),
      deleteDecisionsBefore: db.prepare('DELETE FROM decisions WHERE id < ?'),
      deleteSetsBefore: db.prepare('DELETE FROM sets WHERE id < ?'),
      minNamedStart: db.prepare('SELECT min(min_start) FROM sets').pluck(),
      deleteRecords: db.prepare('DELETE FROM records WHERE "end" < ? AND "end" <= ?'),
      count: {
        records: db.prepare('SELECT count(*) FROM records').pluck(),
        decisions: db.prepare('SELECT count(*) FROM decisions').pluck(),
        sets: db.prepare('SELECT count(*) FROM sets').pluck(),
      },
    };
  }

  commit(batch: CommitBatch): Promise<CommitResult> {
    try {
      return Promise.resolve(this.commitSync(batch));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** {@link SqliteStore.commit}, synchronously: the transaction is written when it returns. */
  private commitSync(batch: CommitBatch): CommitResult {
    try {
      const result = this.commitTx(batch);
      if (this.worker !== undefined && ++this.commits % 256 === 0) this.limitWal();
      return result;
    } catch (e) {
      // The transaction rolled back: the current set may be one it had written.
      this.loadCurrent();
      throw e;
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
            cur !== undefined && (cur.body === d.set || equal(cur.body, d.set)) ? undefined : d.set;
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
          const body = d.set !== undefined && equal(d.set, set!) ? d.set : set!;
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
      if (equal(sha256(bytes.subarray(0, bytes.length - 64)), digest)) return bytes;
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

  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void> {
    return settle(() => {
      this.stmt.putBlob.run(digest, kind, bytes);
    });
  }

  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getBlobSync(kind, digest));
  }

  private getBlobSync(kind: BlobKind, digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const b = this.stmt.getBlob.get(kind, digest) as Buffer | undefined;
    return b === undefined ? undefined : asBytes(b);
  }

  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    return settle(() => this.pruneSync(recordsBefore, decisionsBefore));
  }

  private pruneSync(recordsBefore: bigint, decisionsBefore: bigint): PruneResult {
    return this.db.transaction((): PruneResult => {
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
      return { records, decisions, sets };
    })();
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
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) {
      this.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('close');
    }
    if (this.db.open) this.db.close();
  }

  /** Resolves once the store and its checkpointer are closed. */
  whenClosed(): Promise<void> {
    return this.exited;
  }
}
