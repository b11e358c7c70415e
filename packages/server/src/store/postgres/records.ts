/**
 * The shared store's records (`records`): as in SQLite, plus the inserting transaction's id
 * (`xid8`), so that the catch-up query ({@link PgRecords.recordsSince}) reads what was committed
 * since a snapshot's `xmin` and a record is never missed however the instances' transactions
 * interleave. Written by the group commit (`decisions.ts`), which notifies `wai_records` of each
 * new one (payload: the digest in hex) in its transaction, so that a listener hears of a row
 * only once it is visible.
 */
import type pg from 'pg';
import type { RecordStore, StoredRecord } from '../records.js';
import { asBytes, buf, clamp, type PgContext } from './context.js';

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

export class PgRecords implements RecordStore {
  constructor(private readonly ctx: PgContext) {}

  /** The group commit's records, in its transaction on `w`: for each, whether it was new. */
  async write(w: pg.ClientBase, r: readonly StoredRecord[]): Promise<boolean[]> {
    const inserted: boolean[] = [];
    if (r.length === 0) return inserted;
    const { rows } = await w.query<{ digest: Buffer }>(
      `WITH ins AS (
         INSERT INTO records (digest, hop, start, "end", bytes)
         SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::int8[], $4::int8[], $5::bytea[])
         ON CONFLICT (digest) DO NOTHING
         RETURNING digest
       )
       SELECT digest, pg_notify('wai_records', encode(digest, 'hex')) FROM ins`,
      [
        r.map((x) => buf(x.digest)),
        r.map((x) => buf(x.hop)),
        r.map((x) => clamp(x.start)),
        r.map((x) => clamp(x.end)),
        r.map((x) => buf(x.bytes)),
      ],
    );
    const fresh = new Set(rows.map((x) => x.digest.toString('hex')));
    for (const x of r) {
      const hex = buf(x.digest).toString('hex');
      inserted.push(fresh.delete(hex)); // a digest twice in a batch is new once
    }
    return inserted;
  }

  async getRecord(digest: Uint8Array): Promise<Uint8Array | undefined> {
    if (digest.length !== 32) return undefined;
    const { rows } = await this.ctx.pool.query<{ bytes: Buffer }>(
      'SELECT bytes FROM records WHERE digest = $1',
      [buf(digest)],
    );
    return rows[0] === undefined ? undefined : asBytes(rows[0].bytes);
  }

  async *recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord> {
    const { rows } = await this.ctx.pool.query<{ digest: Buffer; hop: Buffer; bytes: Buffer }>(
      'SELECT digest, hop, bytes FROM records WHERE "end" > $1 ORDER BY start',
      [clamp(end)],
    );
    for (const row of rows) yield recordOf(row);
  }

  async recordsOfHops(
    hops: readonly Uint8Array[],
    after: bigint,
    through: bigint,
  ): Promise<StoredRecord[]> {
    if (hops.length === 0 || through <= after || through <= 0n) return [];
    // The range of the `end` index, the hops filtered, sorted by `start` (a page: few rows).
    const { rows } = await this.ctx.pool.query<{ digest: Buffer; hop: Buffer; bytes: Buffer }>(
      `SELECT digest, hop, bytes FROM records
       WHERE "end" > $1 AND "end" <= $2 AND hop = ANY($3::bytea[]) ORDER BY start, digest`,
      [String(after < 0n ? -1n : clamp(after)), String(clamp(through)), hops.map(buf)],
    );
    return rows.map(recordOf);
  }

  /**
   * The catch-up query: records ending after `end` committed since `horizon` (a snapshot's
   * `xmin` this returned before; `undefined` for all), and the horizon of this read. Every
   * transaction below a snapshot's `xmin` is settled, so a record is read at least once by a
   * reader that passes each returned horizon to its next call, whatever the commit order.
   */
  async recordsSince(
    horizon: string | undefined,
    end: bigint,
  ): Promise<{ records: StoredRecord[]; horizon: string }> {
    const { rows } = await this.ctx.pool.query<{
      horizon: string;
      digest: Buffer | null;
      hop: Buffer | null;
      bytes: Buffer | null;
    }>(
      `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x)
       SELECT h.x::text AS horizon, r.digest, r.hop, r.bytes
       FROM h LEFT JOIN records r ON r.xid >= $1::xid8 AND r."end" > $2
       ORDER BY r.start`,
      [horizon ?? '0', clamp(end)],
    );
    const records: StoredRecord[] = [];
    for (const row of rows) {
      if (row.digest !== null && row.hop !== null && row.bytes !== null) {
        records.push(recordOf({ digest: row.digest, hop: row.hop, bytes: row.bytes }));
      }
    }
    return { records, horizon: rows[0]!.horizon };
  }
}
