/**
 * The shared store's decision log (`docs/server.md`, *The decision log*): its head and lease
 * (`log_head`, `log_lease`, by the database's clock), its entries as entry bundles
 * (`log_bundles`) with each one's index by its `t` and digest (`log_keys`, `log_keys_more`), its
 * tiles of level 1 and above (`log_tiles`) and its checkpoints with their cosignatures
 * (`log_checkpoints`). The group commit appends the pending entries (`log_pending`,
 * `decisions.ts`); the integration and the pruning are `log-integration.ts`.
 */
import type pg from 'pg';
import { bundleEntries, ENTRY, keyOf } from '../entries.js';
import type { LogEntryRow, LogHead, LogReads, StoredCheckpoint } from '../log.js';
import {
  asBytes,
  asInt64,
  asU64,
  clamp,
  equal,
  type PgContext,
  sha256,
  tailTime,
} from './context.js';

/** The decision log's head row, as read. */
export interface HeadRow {
  origin: string;
  size: string;
  root: Buffer;
  min_index: string;
}
export const HEAD =
  'SELECT origin, size::text AS size, root, min_index::text AS min_index FROM log_head WHERE id = 1';
export function headOf(r: HeadRow): LogHead {
  return {
    origin: r.origin,
    size: BigInt(r.size),
    root: asBytes(r.root),
    minIndex: BigInt(r.min_index),
  };
}

interface CheckpointRow {
  size: string;
  issued: string;
  text: string;
}
/** (Ordered by `log_checkpoints.size`: `size` alone would be the text column of the output.) */
const CHECKPOINTS = 'SELECT size::text AS size, issued::text AS issued, text FROM log_checkpoints';
function checkpointOf(r: CheckpointRow): StoredCheckpoint {
  return { size: BigInt(r.size), issued: asU64(r.issued), text: r.text };
}

/** The log's reads, its beginning, its lease and its cosignatures. */
export class PgLog implements LogReads {
  constructor(private readonly ctx: PgContext) {}

  async logHead(): Promise<LogHead | undefined> {
    const { rows } = await this.ctx.pool.query<HeadRow>(HEAD);
    return rows[0] === undefined ? undefined : headOf(rows[0]);
  }

  async beginLog(origin: string): Promise<string> {
    await this.ctx.pool.query(
      `INSERT INTO log_head (id, origin, size, root, min_index) VALUES (1, $1, 0, $2, 0)
       ON CONFLICT (id) DO NOTHING`,
      [origin, sha256(new Uint8Array(0))],
    );
    const { rows } = await this.ctx.pool.query<{ origin: string }>(
      'SELECT origin FROM log_head WHERE id = 1',
    );
    return rows[0]!.origin;
  }

  /** The lease, by the database's clock (the instances' clocks need not agree). */
  async takeLogLease(holder: string, ms: number): Promise<boolean> {
    const { rows } = await this.ctx.pool.query(
      `INSERT INTO log_lease (id, holder, until)
       VALUES (1, $1, clock_timestamp() + $2 * interval '1 millisecond')
       ON CONFLICT (id) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
       WHERE log_lease.holder = EXCLUDED.holder OR log_lease.until < clock_timestamp()
       RETURNING holder`,
      [holder, ms],
    );
    return rows.length === 1;
  }

  async releaseLogLease(holder: string): Promise<void> {
    await this.ctx.pool.query('DELETE FROM log_lease WHERE id = 1 AND holder = $1', [holder]);
  }

  async addLogCosignatures(size: bigint, text: string): Promise<void> {
    await this.ctx.pool.query('UPDATE log_checkpoints SET text = $1 WHERE size = $2', [
      text,
      size.toString(),
    ]);
  }

  /** The digest of entry `index`, from its bundle. */
  async digestAt(c: pg.ClientBase | pg.Pool, index: bigint): Promise<Uint8Array> {
    const { rows } = await c.query<{ data: Buffer }>(
      'SELECT data FROM log_bundles WHERE idx = $1',
      [(index >> 8n).toString()],
    );
    const at = Number(index & 255n) * (2 + ENTRY);
    const data = rows[0]?.data;
    if (data === undefined || at + 2 + ENTRY > data.length) return new Uint8Array(0);
    return asBytes(data).subarray(at + 10, at + 2 + ENTRY);
  }

  async latestLogCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const { rows } = await this.ctx.pool.query<CheckpointRow>(
      `${CHECKPOINTS} ORDER BY log_checkpoints.size DESC LIMIT 1`,
    );
    return rows[0] === undefined ? undefined : checkpointOf(rows[0]);
  }

  async logCheckpoints(fromSize: bigint, limit: number): Promise<StoredCheckpoint[]> {
    const { rows } = await this.ctx.pool.query<CheckpointRow>(
      `${CHECKPOINTS} WHERE size >= $1 ORDER BY log_checkpoints.size LIMIT $2`,
      [clamp(fromSize).toString(), limit],
    );
    return rows.map(checkpointOf);
  }

  async logEntries(from: bigint, to: bigint): Promise<LogEntryRow[]> {
    const lo = clamp(from);
    const hi = clamp(to);
    if (hi <= lo) return [];
    const { rows } = await this.ctx.pool.query<{ idx: string; data: Buffer }>(
      `SELECT idx::text AS idx, data FROM log_bundles WHERE idx >= $1 AND idx < $2
       ORDER BY log_bundles.idx`,
      [(lo >> 8n).toString(), (((hi - 1n) >> 8n) + 1n).toString()],
    );
    const out: LogEntryRow[] = [];
    for (const r of rows) {
      const first = BigInt(r.idx) << 8n;
      bundleEntries(asBytes(r.data)).forEach((e, i) => {
        const index = first + BigInt(i);
        if (index < lo || index >= hi) return;
        out.push({ index, t: tailTime(e), digest: e.slice(8) });
      });
    }
    return out;
  }

  async logIndexOf(t: bigint, digest: Uint8Array): Promise<bigint | undefined> {
    if (digest.length !== 32) return undefined;
    const key = keyOf(digest);
    const { rows } = await this.ctx.pool.query<{ idx: string }>(
      `SELECT idx::text AS idx FROM log_keys WHERE t = $1 AND key = $2
       UNION ALL SELECT idx::text FROM log_keys_more WHERE t = $1 AND key = $2`,
      [asInt64(t), key],
    );
    for (const r of rows) {
      const index = BigInt(r.idx);
      if (equal(await this.digestAt(this.ctx.pool, index), digest)) return index;
    }
    return undefined;
  }

  async logTile(level: number, index: bigint): Promise<Uint8Array | undefined> {
    const { rows } = await this.ctx.pool.query<{ data: Buffer }>(
      'SELECT data FROM log_tiles WHERE level = $1 AND idx = $2',
      [level, clamp(index).toString()],
    );
    return rows[0] === undefined ? undefined : asBytes(rows[0].data);
  }
}
