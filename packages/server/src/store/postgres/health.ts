/** The shared store's health: its sizes, and the newest instants it holds. */
import type { HealthStore, NewestHeld, StoreStats } from '../health.js';
import { clamp, type PgContext } from './context.js';

export class PgHealth implements HealthStore {
  constructor(private readonly ctx: PgContext) {}

  /**
   * The newest instants held, µs: the latest decision's `t` (the decisions' own, by their index
   * on `t`: a set's `last_t` may lag it, `decisions.ts`), and the latest `end` of a record that
   * ends at or before `notAfter`.
   */
  async newest(notAfter: bigint): Promise<NewestHeld> {
    const { rows } = await this.ctx.pool.query<{ d: string | null; r: string | null }>(
      `SELECT greatest((SELECT max(last_t) FROM sets), (SELECT max(t) FROM decisions))::text AS d,
              (SELECT max("end") FROM records WHERE "end" <= $1)::text AS r`,
      [clamp(notAfter)],
    );
    const row = rows[0]!;
    return {
      decision: row.d === null ? undefined : BigInt(row.d),
      record: row.r === null ? undefined : BigInt(row.r),
    };
  }

  async stats(): Promise<StoreStats> {
    const { rows } = await this.ctx.pool.query<{ r: string; d: string; s: string; b: string }>(
      `SELECT (SELECT count(*) FROM records) AS r, (SELECT count(*) FROM decisions) AS d,
              (SELECT count(*) FROM sets) AS s,
              (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                 WHERE c.relkind = 'r' AND (c.relname IN ('records', 'sets', 'blobs')
                   OR c.relname LIKE 'decisions\\_%' OR c.relname LIKE 'log\\_%')) AS b`,
    );
    const r = rows[0]!;
    return { records: Number(r.r), decisions: Number(r.d), sets: Number(r.s), bytes: Number(r.b) };
  }
}
