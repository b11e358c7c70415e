/**
 * The shared store's retention (§8.4), in one transaction under the schema lock: the daily
 * partitions of `decisions` wholly before the cutoff dropped (`schema.ts`), the default
 * partition's rows deleted; then the evidence sets no kept decision uses, the records no kept
 * set names, and the order of policies (`policies.ts`). The decision log is pruned by its own
 * concern (`log-integration.ts`).
 */
import type { PruneResult, RetentionStore } from '../retention.js';
import { clamp, INT8_MAX, type PgContext } from './context.js';
import { LAST_T_LAG_US, type PgDecisions } from './decisions.js';
import type { PgPolicies } from './policies.js';
import { type PgPartitions, SCHEMA_LOCK } from './schema.js';

export class PgRetention implements RetentionStore {
  constructor(
    private readonly ctx: PgContext,
    private readonly partitions: PgPartitions,
    private readonly decisions: PgDecisions,
    private readonly policies: PgPolicies,
  ) {}

  /**
   * Creates the partitions ahead, then removes decisions decided before `decisionsBefore`: the
   * daily partitions wholly before it are dropped, the default partition's rows deleted; then the
   * evidence sets no kept decision uses, and records ended before `recordsBefore` that no kept
   * set names (§8.4).
   */
  async prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    // The days ahead, created at each pass (every `retention.sweep`).
    await this.partitions.maintain(BigInt(Date.now()) * 1000n);
    const before = clamp(decisionsBefore);
    const c = await this.ctx.hold();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      const dropped = await this.partitions.dropBefore(c, before);
      let { decisions, keptFrom } = dropped;
      const del = await c.query('DELETE FROM decisions_default WHERE t < $1', [before]);
      decisions += del.rowCount ?? 0;
      const { rows: dmin } = await c.query<{ t: string | null }>(
        'SELECT min(t)::text AS t FROM decisions_default',
      );
      if (dmin[0]!.t !== null && (keptFrom === undefined || BigInt(dmin[0]!.t) < keptFrom)) {
        keptFrom = BigInt(dmin[0]!.t);
      }
      // A set whose latest decision is before every kept decision is used by none. Its stored
      // last_t may lag its latest decision by less than LAST_T_LAG_US (decisions.ts): a set
      // whose last_t is within that of the first kept decision goes only when no kept decision
      // of that span names it.
      const setsDel = await c.query(
        `DELETE FROM sets s WHERE s.last_t < $1::int8 - $2::int8
           OR (s.last_t < $1::int8 AND NOT EXISTS (
             SELECT 1 FROM decisions d
             WHERE d.t >= $1::int8 AND d.t - $2::int8 < s.last_t AND d.set_id = s.id))`,
        [keptFrom === undefined ? INT8_MAX : keptFrom, LAST_T_LAG_US],
      );
      // §8.4: every record a set names starts at or after its min_start.
      const recs = await c.query(
        `DELETE FROM records WHERE "end" < $1
           AND "end" <= coalesce((SELECT min(min_start) FROM sets), $2)`,
        [clamp(recordsBefore), INT8_MAX],
      );
      await this.policies.prune(c, keptFrom ?? before);
      await c.query('COMMIT');
      if ((setsDel.rowCount ?? 0) > 0) this.decisions.forgetCurrent();
      return { records: recs.rowCount ?? 0, decisions, sets: setsDel.rowCount ?? 0 };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }
}
