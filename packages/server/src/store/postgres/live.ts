/**
 * The shared store's live capacity (`capacity_reports`): the latest site report of each pathway
 * and hop, kept for every instance (`docs/live-policy.md`); a report kept notifies `wai_live`.
 */
import type { LiveStore, StoredCapacityReport } from '../live.js';
import { buf, clamp, type PgContext } from './context.js';

export class PgLive implements LiveStore {
  constructor(private readonly ctx: PgContext) {}

  async putCapacityReport(room: Uint8Array, r: StoredCapacityReport): Promise<boolean> {
    const { rows } = await this.ctx.pool.query(
      `WITH up AS (
         INSERT INTO capacity_reports (room, pathway, hop, t, jws) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (room, pathway, hop) DO UPDATE SET t = EXCLUDED.t, jws = EXCLUDED.jws
         WHERE capacity_reports.t < EXCLUDED.t
         RETURNING room
       )
       SELECT pg_notify('wai_live', 'capacity:' || encode(room, 'hex')) FROM up`,
      [buf(room), r.pathway, r.hop, String(clamp(r.t)), r.jws],
    );
    return rows.length === 1;
  }

  async capacityReports(room: Uint8Array): Promise<StoredCapacityReport[]> {
    const { rows } = await this.ctx.pool.query<{
      pathway: string;
      hop: string;
      t: string;
      jws: string;
    }>('SELECT pathway, hop, t::text AS t, jws FROM capacity_reports WHERE room = $1', [buf(room)]);
    return rows.map((r) => ({ pathway: r.pathway, hop: r.hop, t: BigInt(r.t), jws: r.jws }));
  }
}
