/**
 * The embedded store's decision log (`docs/server.md`, *The decision log*): its head and lease
 * (`log_head`, `log_lease`), its entries as entry bundles (`log_bundles`) with each one's index
 * by its `t` and digest (`log_keys`, `log_keys_more`), its tiles of level 1 and above
 * (`log_tiles`) and its checkpoints with their cosignatures (`log_checkpoints`). The group commit
 * appends the pending entries (`log_pending`, `decisions.ts`); the integration and the pruning
 * are `log-integration.ts`.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { bytesEqual, sha256 } from '@wai-steering/wire';
import type Database from 'better-sqlite3';
import { bundleEntries, bundleEntry, ENTRY } from '../entries.js';
import type { LogEntryRow, LogHead, LogReads, StoredCheckpoint } from '../log.js';
import {
  asBytes,
  asInt64,
  asU64,
  INT_MAX,
  type SqliteContext,
  settle,
  writeFromTheLoop,
} from './context.js';

/**
 * Entries' keys inserted by one statement (the integrator's common case), under a savepoint:
 * three statements a chunk (768 parameters, within SQLite's 32,766).
 */
export const KEYS_AT_ONCE = 256;

/**
 * The log's key of an entry: its digest's first 6 bytes, a number (a 48-bit prefix: with the
 * entry's t, two digests share it about never, and the store tells them apart when they do).
 */
export function logKeyOf(entry: Uint8Array): number {
  let k = 0;
  for (let i = 8; i < 14; i++) k = k * 256 + entry[i]!;
  return k;
}

/**
 * An entry's t in a signed 64-bit column: a number when exact, else the bigint (two's
 * complement). Read as two 32-bit words: a t of at most 2^53 − 1 (its high word below 2^21, every
 * t of this era) makes no bigint.
 */
export function entryTime(entry: Uint8Array): number | bigint {
  const lo = (entry[0]! | (entry[1]! << 8) | (entry[2]! << 16) | (entry[3]! << 24)) >>> 0;
  const hi = (entry[4]! | (entry[5]! << 8) | (entry[6]! << 16) | (entry[7]! << 24)) >>> 0;
  if (hi < 0x200000) return hi * 0x100000000 + lo;
  return asInt64((BigInt(hi) << 32n) | BigInt(lo));
}

/** An index in a signed 64-bit column: a number when exact. */
export function indexColumn(i: bigint): number | bigint {
  return i <= INT_MAX ? Number(i) : asInt64(i);
}

const INT64_MAX = (1n << 63n) - 1n;

/** An index in a signed 64-bit column: from 0 to 2^63 − 1. */
function clampIndex(v: bigint): bigint {
  return v < 0n ? 0n : v > INT64_MAX ? INT64_MAX : v;
}

function checkpointOf(r: { size: bigint; issued: bigint; text: string }): StoredCheckpoint {
  return { size: asU64(r.size), issued: asU64(r.issued), text: r.text };
}

/** The log's reads, its beginning, its lease and its cosignatures. */
export class SqliteLog implements LogReads {
  readonly db: Database.Database;
  private stmtCache: LogStatements | undefined;

  constructor(readonly ctx: SqliteContext) {
    this.db = ctx.db;
  }

  /** The log's statements, prepared at their first use. */
  get st(): LogStatements {
    this.stmtCache ??= statements(this.db);
    return this.stmtCache;
  }

  logHead(): Promise<LogHead | undefined> {
    return settle(() => this.headSync());
  }

  headSync(): LogHead | undefined {
    const r = this.st.head.get() as
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
      this.st.begin.run(origin, sha256(new Uint8Array(0)));
      return this.headSync()!.origin;
    });
  }

  /** The lease, by the wall clock (the workers of one file share one machine's clock). */
  takeLogLease(holder: string, ms: number): Promise<boolean> {
    // A write: another worker's commit holding the lock is waited for from the event loop.
    return writeFromTheLoop(this.ctx, () => {
      const now = Date.now();
      if (this.st.lease.run(holder, now + ms, now).changes === 1) return true;
      // A holder whose process is gone (killed on this machine: the workers of one file share
      // it) leaves its lease at once, not at its expiry, so that a server started again after
      // `kill -9` integrates from its start, and integrates what is pending at its stop.
      const held = this.st.leaseHolder.get() as { holder: string } | undefined;
      if (held === undefined || !holderGone(held.holder)) return false;
      return this.st.leaseFrom.run(holder, now + ms, held.holder).changes === 1;
    });
  }

  releaseLogLease(holder: string): Promise<void> {
    return settle(() => {
      this.st.release.run(holder);
    });
  }

  addLogCosignatures(size: bigint, text: string): Promise<void> {
    return settle(() => {
      this.st.cosign.run(text, asInt64(size));
    });
  }

  /** The digest of entry `index`: from its bundle, or from the batch being admitted. */
  digestAt(index: bigint, size: bigint, batch: readonly Uint8Array[]): Uint8Array {
    if (index >= size) return batch[Number(index - size)]!.subarray(8);
    const data = this.st.bundle.get(asInt64(index >> 8n)) as Buffer | undefined;
    const entry = data === undefined ? undefined : bundleEntry(asBytes(data), Number(index & 255n));
    return entry?.subarray(8) ?? new Uint8Array(0);
  }

  latestLogCheckpoint(): Promise<StoredCheckpoint | undefined> {
    return settle(() => {
      const r = this.st.latest.get() as { size: bigint; issued: bigint; text: string } | undefined;
      return r === undefined ? undefined : checkpointOf(r);
    });
  }

  logCheckpoints(fromSize: bigint, limit: number): Promise<StoredCheckpoint[]> {
    return settle(() =>
      (
        this.st.checkpoints.all(asInt64(fromSize), limit) as {
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
      for (const b of this.st.bundles.iterate(lo >> 8n, ((hi - 1n) >> 8n) + 1n) as Iterable<{
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
      const head = this.headSync();
      if (head === undefined) return undefined;
      const entry = new Uint8Array(ENTRY);
      new DataView(entry.buffer).setBigUint64(0, t, true);
      entry.set(digest, 8);
      const at = entryTime(entry);
      const key = logKeyOf(entry);
      for (const i of (this.st.keyIdx.all(at, key, at, key) as bigint[]).map(asU64)) {
        if (i < head.size && bytesEqual(this.digestAt(i, head.size, []), digest)) return i;
      }
      return undefined;
    });
  }

  logTile(level: number, index: bigint): Promise<Uint8Array | undefined> {
    return settle(() => {
      const b = this.st.tile.get(level, clampIndex(index)) as Buffer | undefined;
      return b === undefined ? undefined : asBytes(b);
    });
  }
}

/** Whether this machine has Linux's /proc (the processes' states), read once. */
const HAS_PROC = ((): boolean => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/**
 * Whether a lease's holder (`<host>:<pid>:<random>`, `log/log.ts`) is a process of this machine
 * that no longer runs. A holder of another machine, or whose pid runs (perhaps another process
 * given the same pid), is not gone: its lease ends at its expiry.
 */
function holderGone(holder: string): boolean {
  const m = /^(.*):(\d+):[0-9a-f]+$/.exec(holder);
  if (m === null || m[1] !== hostname()) return false;
  const pid = Number(m[2]);
  if (pid === process.pid) return false;
  // Linux: a process that has exited and that no parent has reaped yet (a zombie: killed with its
  // parent, under a PID 1 that does not reap) is gone too.
  if (HAS_PROC) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state === 'Z' || state === 'X';
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The log's statements, by name. */
type LogStatements = Record<
  | 'head'
  | 'begin'
  | 'lease'
  | 'release'
  | 'leaseHolder'
  | 'leaseFrom'
  | 'pending'
  | 'addKey'
  | 'addKeys'
  | 'savepoint'
  | 'releaseSavepoint'
  | 'rollbackTo'
  | 'addMoreKey'
  | 'keyIdx'
  | 'dropKey'
  | 'dropMoreKey'
  | 'bundle'
  | 'bundles'
  | 'putBundle'
  | 'tile'
  | 'putTile'
  | 'putCheckpoint'
  | 'setHead'
  | 'dropPending'
  | 'latest'
  | 'checkpoints'
  | 'cosign',
  Database.Statement
>;

function statements(db: Database.Database): LogStatements {
  const big = (st: Database.Statement): Database.Statement => st.safeIntegers(true);
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
    leaseHolder: db.prepare('SELECT holder FROM log_lease WHERE id = 1'),
    leaseFrom: db.prepare('UPDATE log_lease SET holder = ?, until = ? WHERE id = 1 AND holder = ?'),
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
