/**
 * The embedded store's retention (§8.4): decisions by age with the evidence sets no kept decision
 * uses, the records no kept set names, and the order of policies (`policies.ts`), in one
 * transaction. The decision log is pruned by its own concern (`log-integration.ts`).
 */
import type Database from 'better-sqlite3';
import type { PruneResult, RetentionStore } from '../retention.js';
import { clampU64, type SqliteContext, writeFromTheLoop } from './context.js';
import type { SqliteDecisions } from './decisions.js';
import type { SqlitePolicies } from './policies.js';

export class SqliteRetention implements RetentionStore {
  private readonly db: Database.Database;
  private readonly s: ReturnType<typeof statements>;

  constructor(
    private readonly ctx: SqliteContext,
    private readonly decisions: SqliteDecisions,
    private readonly policies: SqlitePolicies,
  ) {
    this.db = ctx.db;
    this.s = statements(ctx.db);
  }

  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    // Another worker's commit holding the write lock is waited for from the event loop.
    return writeFromTheLoop(this.ctx, () => this.pruneSync(recordsBefore, decisionsBefore));
  }

  private pruneSync(recordsBefore: bigint, decisionsBefore: bigint): PruneResult {
    const prune = this.db.transaction((): PruneResult => {
      const s = this.s;
      const kept = s.oldestKeptSet.get(clampU64(decisionsBefore < 0n ? 0n : decisionsBefore)) as
        | { id: number; first_decision: number }
        | undefined;
      let decisions: number;
      let sets: number;
      if (kept === undefined) {
        // No decision is kept: every set goes, the current one included.
        decisions = this.db.prepare('DELETE FROM decisions').run().changes;
        sets = this.db.prepare('DELETE FROM sets').run().changes;
        // Row ids start again from 1: every one after `keys_through` again.
        this.db.prepare('DELETE FROM decision_keys').run();
        this.db.prepare("UPDATE meta SET v = 0 WHERE k = 'keys_through'").run();
        this.decisions.keys.reset();
        this.decisions.forgetCurrent();
      } else {
        decisions = s.deleteDecisionsBefore.run(kept.first_decision).changes;
        s.deleteKeysBefore.run(kept.first_decision);
        sets = s.deleteSetsBefore.run(kept.id).changes;
      }
      if (sets > 0) this.decisions.setsPruned();
      // §8.4: a record named by a kept decision stays. Every record a set names starts at or
      // after its min_start, so one that ends at or before the least min_start is named by none.
      const minNamed = (s.minNamedStart.get() as number | null) ?? Number.MAX_SAFE_INTEGER;
      const records = s.deleteRecords.run(
        clampU64(recordsBefore < 0n ? 0n : recordsBefore),
        minNamed,
      ).changes;
      // The order of policies, and the live policies no kept decision can name (§8.4).
      const first = s.firstKeptTail.get() as Buffer | undefined;
      const oldestKept =
        first === undefined
          ? decisionsBefore
          : new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
      this.policies.prune(oldestKept);
      return { records, decisions, sets };
    });
    return prune.immediate();
  }
}

function statements(db: Database.Database) {
  return {
    oldestKeptSet: db.prepare(
      'SELECT id, first_decision FROM sets WHERE last_t >= ? ORDER BY id LIMIT 1',
    ),
    deleteDecisionsBefore: db.prepare('DELETE FROM decisions WHERE id < ?'),
    deleteKeysBefore: db.prepare('DELETE FROM decision_keys WHERE id < ?'),
    firstKeptTail: db.prepare('SELECT tail FROM decisions ORDER BY id LIMIT 1').pluck(),
    deleteSetsBefore: db.prepare('DELETE FROM sets WHERE id < ?'),
    minNamedStart: db.prepare('SELECT min(min_start) FROM sets').pluck(),
    deleteRecords: db.prepare('DELETE FROM records WHERE "end" < ? AND "end" <= ?'),
  };
}
