/**
 * The embedded store's records (`records`): written by the group commit (`decisions.ts`), read
 * by digest, by window, and by hop over a range of `end` (the energy account).
 */
import type Database from 'better-sqlite3';
import type { RecordStore, StoredRecord } from '../records.js';
import { asBytes, clampU64, type SqliteContext, settle } from './context.js';

export class SqliteRecords implements RecordStore {
  private readonly insert: Database.Statement;
  private readonly byDigest: Database.Statement;
  private readonly start: Database.Statement;
  private readonly after: Database.Statement;
  /** `recordsOfHops`' statements, by the number of hops they name. */
  private readonly ofHops = new Map<number, Database.Statement>();
  private readonly db: Database.Database;

  constructor(ctx: SqliteContext) {
    const db = ctx.db;
    this.db = db;
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO records (digest, hop, start, "end", bytes) VALUES (?, ?, ?, ?, ?)',
    );
    this.byDigest = db.prepare('SELECT bytes FROM records WHERE digest = ?').pluck();
    this.start = db.prepare('SELECT start FROM records WHERE digest = ?').pluck();
    this.after = db.prepare(
      'SELECT digest, hop, bytes FROM records WHERE "end" > ? ORDER BY start',
    );
  }

  /** The group commit's records, in its transaction: for each, whether it was new. */
  write(records: readonly StoredRecord[]): boolean[] {
    const inserted: boolean[] = [];
    for (const r of records) {
      const info = this.insert.run(r.digest, r.hop, clampU64(r.start), clampU64(r.end), r.bytes);
      inserted.push(info.changes > 0);
    }
    return inserted;
  }

  /** The `start` of the record of `digest`, µs (an evidence set's least: `decisions.ts`). */
  startOf(digest: Uint8Array): number | undefined {
    return this.start.get(digest) as number | undefined;
  }

  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined> {
    return settle(() => this.getRecordSync(digest));
  }

  private getRecordSync(digest: Uint8Array): Uint8Array | undefined {
    if (digest.length !== 32) return undefined;
    const b = this.byDigest.get(digest) as Buffer | undefined;
    return b === undefined ? undefined : asBytes(b);
  }

  async *recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord> {
    yield* this.recordsEndingAfterSync(end);
  }

  recordsOfHops(
    hops: readonly Uint8Array[],
    after: bigint,
    through: bigint,
  ): Promise<StoredRecord[]> {
    return settle(() => this.recordsOfHopsSync(hops, after, through));
  }

  /** The range of the `end` index, the hops filtered, sorted by `start` (a page: few rows). */
  private recordsOfHopsSync(
    hops: readonly Uint8Array[],
    after: bigint,
    through: bigint,
  ): StoredRecord[] {
    if (hops.length === 0 || through <= after || through <= 0n) return [];
    let s = this.ofHops.get(hops.length);
    if (s === undefined) {
      s = this.db.prepare(
        `SELECT digest, hop, bytes FROM records WHERE "end" > ? AND "end" <= ?
         AND hop IN (${hops.map(() => '?').join(', ')}) ORDER BY start, digest`,
      );
      this.ofHops.set(hops.length, s);
    }
    const rows = s.all(
      clampU64(after < 0n ? -1n : after),
      clampU64(through),
      ...hops,
    ) as { digest: Buffer; hop: Buffer; bytes: Buffer }[];
    return rows.map(recordOf);
  }

  private *recordsEndingAfterSync(end: bigint): Iterable<StoredRecord> {
    for (const row of this.after.iterate(clampU64(end < 0n ? 0n : end)) as Iterable<{
      digest: Buffer;
      hop: Buffer;
      bytes: Buffer;
    }>) {
      yield recordOf(row);
    }
  }
}

function recordOf(row: { digest: Buffer; hop: Buffer; bytes: Buffer }): StoredRecord {
  const bytes = asBytes(row.bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    digest: asBytes(row.digest),
    hop: asBytes(row.hop),
    bytes,
    start: view.getBigUint64(69, true),
    end: view.getBigUint64(77, true),
  };
}
