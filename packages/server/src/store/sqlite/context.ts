/**
 * What the embedded store's concerns share: the connection (`better-sqlite3`, WAL mode), its
 * background checkpointer, the group commit's transaction and its retry while another process
 * holds the write lock, and the column conversions every concern uses. One context per store,
 * given to each concern (`decisions.ts`, `records.ts`, …), which prepares its own statements.
 *
 * Durability: `synchronous = NORMAL` (the default) makes a committed transaction survive the
 * death of the process (kill -9): in WAL mode the commit is in the WAL file, written with
 * `write(2)`, when it returns, and SQLite replays it at the next open; a power loss may lose the
 * last transactions before a checkpoint. `synchronous = FULL` also fsyncs the WAL at each commit,
 * which survives a power loss and costs an fsync per group commit.
 */
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { traced, traceNow, type WorkTrace, workChannel } from '../../trace.js';
import type { CommitBatch, CommitResult } from '../decisions.js';
import { startCheckpointer, WAL_LIMIT, WAL_RESTART_FRAMES } from './checkpointer.js';

/** Options of the embedded store (`SqliteStore`). */
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
  /** Internal, for tests and the bench: the decisions past which their keys are merged. */
  readonly keyMergeRows?: number;
  /**
   * The instance whose commits these are, kept with each decision (a worker of
   * `serve --workers N`: its slot), so that it rebuilds its own sessions at start.
   */
  readonly instance?: number;
}

/** How long a write waits for another process's write lock before it fails. */
export const BUSY_WAIT_MS = 5000;

/** Whether `e` is SQLite's "database is locked" (another connection holds the write lock). */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY';
}

/** SQLite integers are signed 64-bit: the columns that index a u64 clamp it (the bytes are exact). */
export const INT_MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function clampU64(v: bigint): number {
  return Number(v > INT_MAX ? INT_MAX : v);
}

/** The `t` column of a decision: its `t`, µs, clamped to 2^53 − 1 (the bytes are exact). */
export function timeColumn(t: number): number {
  return Math.min(t, Number.MAX_SAFE_INTEGER);
}

/** `t` of a tail (its first 8 bytes, u64), µs; exact below 2^53. */
export function tailTimeOf(tail: Uint8Array): number {
  return Number(new DataView(tail.buffer, tail.byteOffset, 8).getBigUint64(0, true));
}

/** A u64 in a signed 64-bit column, exactly (two's complement): the log's `t` and sizes. */
export const asInt64 = (v: bigint): bigint => BigInt.asIntN(64, v);
export const asU64 = (v: bigint | number): bigint => BigInt.asUintN(64, BigInt(v));

/** The value of `f`, or its exception, as a settled promise. */
export function settle<T>(f: () => T): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * `write()` (a transaction that asks the write lock first) without SQLite's busy handler, which
 * sleeps on the event loop: while another process (`serve --workers N`) holds the lock, it is
 * asked again from the event loop every millisecond, requests served meanwhile, up to
 * {@link BUSY_WAIT_MS}. The log's integration takes this path: asked each turn a slice at a
 * time, its waits in the busy handler held a worker's every request in flight for up to half a
 * second behind the other worker's commits.
 */
export function writeFromTheLoop<T>(ctx: SqliteContext, write: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  return new Promise<T>((resolve, reject) => {
    const attempt = (): void => {
      let waiting = false;
      if (ctx.db.open) ctx.busyNoWait.get();
      try {
        resolve(write());
      } catch (e) {
        if (isBusy(e) && Date.now() < deadline) waiting = true;
        else reject(e);
      } finally {
        if (ctx.db.open) ctx.busyWait.get();
      }
      if (waiting) setTimeout(attempt, 1);
    };
    attempt();
  });
}

export const asBytes = (b: Buffer): Uint8Array =>
  new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** The connection and what runs beside it: one per store. */
export class SqliteContext {
  readonly db: Database.Database;
  /** Whether the store is `:memory:` (no file, no checkpointer). */
  readonly memory: boolean;
  /** The write lock asked once, or waited for up to {@link BUSY_WAIT_MS}. */
  readonly busyNoWait: Database.Statement;
  readonly busyWait: Database.Statement;
  /** The background checkpointer, when there is one. */
  worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('foreign_keys = OFF');
    // Worker processes (`serve --workers N`) share the file: a writer waits for the lock (the
    // group commit, from the event loop: `GroupCommit`).
    this.db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    this.memory = path === ':memory:' || path === '';
    this.busyNoWait = this.db.prepare('PRAGMA busy_timeout = 0');
    this.busyWait = this.db.prepare(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
  }

  /** Starts the background checkpointer, unless in memory or asked for inline checkpoints. */
  startCheckpointer(options: SqliteStoreOptions): void {
    if (this.memory || (options.checkpoint ?? 'background') !== 'background') return;
    this.db.pragma('wal_autocheckpoint = 0');
    this.worker = startCheckpointer(this.path, options.walRestartFrames ?? WAL_RESTART_FRAMES);
    this.worker.unref();
    // Should it fail, checkpoints fall back to SQLite's own, in the commit.
    const fallBack = (why: unknown): void => {
      if (this.worker === undefined) return; // closed already
      console.error('wai-steering: the checkpointer failed:', why);
      this.worker = undefined;
      if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
    };
    this.worker.on('error', fallBack);
    // Each run says when it ran (the traces, `trace.ts`); a failure, why.
    this.worker.on('message', (m: { failed?: string; ran?: { start: number; end: number } }) => {
      if (m.ran === undefined) fallBack(m.failed);
      else if (workChannel.hasSubscribers) {
        const origin = performance.timeOrigin;
        workChannel.publish({
          name: 'wal-checkpoint',
          start: m.ran.start - origin,
          end: m.ran.end - origin,
        } satisfies WorkTrace);
      }
    });
  }

  /** A WAL the checkpointer did not keep up with is checkpointed here (rare). */
  limitWal(): void {
    let size = 0;
    try {
      size = statSync(`${this.path}-wal`).size;
    } catch {
      return;
    }
    if (size <= WAL_LIMIT) return;
    // Without waiting: a reader holding an old snapshot (a long export) would hold the event loop.
    this.busyNoWait.get();
    try {
      traced('wal-truncate', () => this.db.pragma('wal_checkpoint(TRUNCATE)'));
    } catch {
      // Tried again 256 commits later.
    } finally {
      this.busyWait.get();
    }
  }

  /** Runs a WAL checkpoint (TRUNCATE): the bench measures the database file after it. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Closes the database now; the checkpointer exits after ({@link SqliteContext.whenClosed}). */
  close(): void {
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

/** What the group commit writes in its transaction, and is told of after (the decisions). */
export interface CommitSteps {
  /** The batch's rows, inside the transaction. */
  write(batch: CommitBatch): CommitResult;
  /** After each commit. */
  committed(): void;
  /** After a transaction that began writing rolled back (its rows are not there). */
  rolledBack(): void;
}

/**
 * The group commit's transaction: IMMEDIATE (the write lock first, so that another process's
 * commit is waited for rather than failing the upgrade of a read snapshot,
 * `SQLITE_BUSY_SNAPSHOT`), the lock asked once from the event loop and, while another process
 * (`serve --workers N`) holds it, asked again from the event loop, which serves requests
 * meanwhile, rather than in SQLite's busy handler, which sleeps on the event loop (and waits up
 * to the same 5 s).
 */
export class GroupCommit {
  private readonly tx: Database.Transaction<(batch: CommitBatch) => CommitResult>;
  private commits = 0;
  /** Whether the commit under way began writing (it had the write lock). */
  private writing = false;

  constructor(
    private readonly ctx: SqliteContext,
    private readonly steps: CommitSteps,
  ) {
    this.tx = ctx.db.transaction((batch: CommitBatch) => {
      this.writing = true;
      return steps.write(batch);
    });
  }

  commit(batch: CommitBatch): Promise<CommitResult> {
    try {
      return Promise.resolve(this.commitSync(batch, false));
    } catch (e) {
      if (isBusy(e)) return this.commitLater(batch, Date.now() + BUSY_WAIT_MS);
      return Promise.reject(e);
    }
  }

  private commitLater(batch: CommitBatch, deadline: number): Promise<CommitResult> {
    const refused = workChannel.hasSubscribers ? traceNow() : -1;
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        try {
          resolve(this.commitSync(batch, false));
          if (refused >= 0) {
            workChannel.publish({
              name: 'write-lock',
              start: refused,
              end: traceNow(),
            } satisfies WorkTrace);
          }
        } catch (e) {
          if (isBusy(e) && Date.now() < deadline) setTimeout(attempt, 1);
          else reject(e);
        }
      };
      setImmediate(attempt);
    });
  }

  /**
   * {@link GroupCommit.commit}, synchronously: the transaction is written when it returns. With
   * `wait` false, the write lock is asked once (no busy wait): `SQLITE_BUSY` when another process
   * holds it.
   */
  private commitSync(batch: CommitBatch, wait = true): CommitResult {
    const ctx = this.ctx;
    if (!wait) ctx.busyNoWait.get();
    this.writing = false;
    try {
      const result = this.tx.immediate(batch);
      if (ctx.worker !== undefined && ++this.commits % 256 === 0) ctx.limitWal();
      this.steps.committed();
      return result;
    } catch (e) {
      // The transaction rolled back: what the steps keep of it may be stale. When the write
      // lock was not had (another worker's commit: tried again), nothing was written.
      if (this.writing) this.steps.rolledBack();
      throw e;
    } finally {
      if (!wait) ctx.busyWait.get();
    }
  }
}
