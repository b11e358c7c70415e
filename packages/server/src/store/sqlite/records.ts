/**
 * The embedded store's records (`records`): written by the group commit (`decisions.ts`), read
 * by digest and by window.
 */
import type Database from 'better-sqlite3';
import type { RecordStore, StoredRecord } from '../records.js';
import { asBytes, clampU64, type SqliteContext, settle } from './context.js';

export class SqliteRecords implements RecordStore {
  private readonly insert: Database.Statement;
  private readonly byDigest: Database.Statement;
  private readonly start: Database.Statement;
  private readonly after: Database.Statement;

  constructor(ctx: SqliteContext) {
    const db = ctx.db;
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

  private *recordsEndingAfterSync(end: bigint): Iterable<StoredRecord> {
    for (const row of this.after.iterate(clampU64(end < 0n ? 0n : end)) as Iterable<{
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
}
