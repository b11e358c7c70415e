/**
 * The embedded store's health: its sizes, the newest instants it holds, whether the files at
 * its path are still the ones opened, and SQLite's `quick_check`.
 */
import { closeSync as closeFd, fstatSync, openSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { HealthStore, NewestHeld, StoreStats } from '../health.js';
import { clampU64, type SqliteContext, settle } from './context.js';

/**
 * What sits at the store's path while the server runs (see `SqliteStore.fileState`): the
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

export class SqliteHealth implements HealthStore {
  private readonly db: Database.Database;
  private readonly count: {
    records: Database.Statement;
    decisions: Database.Statement;
    sets: Database.Statement;
  };
  /**
   * The database file, its `-wal` and its `-shm`, as opened: to notice one removed or replaced
   * (a removed `-wal` takes the commits not yet checkpointed with it at the next open).
   */
  private watched: Watched[] = [];

  constructor(ctx: SqliteContext) {
    const db = ctx.db;
    this.db = db;
    this.count = {
      records: db.prepare('SELECT count(*) FROM records').pluck(),
      decisions: db.prepare('SELECT count(*) FROM decisions').pluck(),
      sets: db.prepare('SELECT count(*) FROM sets').pluck(),
    };
  }

  /** Begins watching the files at the store's path (a file store, once opened). */
  watch(path: string): void {
    this.watched = [path, `${path}-wal`, `${path}-shm`].map((p) => ({
      path: p,
      fd: undefined,
      ino: undefined,
    }));
    for (const w of this.watched) identity(w);
  }

  /** Whether the files at the store's path are still the ones opened: see `SqliteStore.fileState`. */
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

  /** Stops watching: the descriptors are closed. */
  close(): void {
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
  }

  /** SQLite's `quick_check` on this connection: see `SqliteStore.quickCheck`. */
  quickCheck(max: number): string[] {
    const rows = this.db.pragma(`quick_check(${Math.max(1, Math.floor(max))})`, {
      simple: false,
    }) as { quick_check: string }[];
    const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
    return problems;
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

  stats(): Promise<StoreStats> {
    return settle(() => this.statsSync());
  }

  private statsSync(): StoreStats {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    return {
      records: this.count.records.get() as number,
      decisions: this.count.decisions.get() as number,
      sets: this.count.sets.get() as number,
      bytes: (pages - free) * pageSize,
    };
  }
}
