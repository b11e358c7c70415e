/**
 * The embedded store's live capacity (`capacity_reports`): the latest site report of each pathway
 * and hop, for the workers of one file (`docs/live-policy.md`).
 */
import type Database from 'better-sqlite3';
import type { LiveStore, StoredCapacityReport } from '../live.js';
import { type SqliteContext, settle } from './context.js';

export class SqliteLive implements LiveStore {
  private readonly db: Database.Database;

  constructor(ctx: SqliteContext) {
    this.db = ctx.db;
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
}
