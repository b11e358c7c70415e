/**
 * Retention of the store (§8.4: a steering server SHOULD keep each decision available for as
 * long as the records it names are): decisions and records go by age, counted back from the
 * newest decision and record kept, never from the clock alone, so that a clock that jumped ahead
 * cannot empty the store; and a record that a current or later window may still name stays
 * whatever its age, so that the evidence index never names a record the store dropped.
 */
import { describeError, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import type { PruneResult, RetentionStore } from '../store/store.js';

export class Retention {
  /** The newest decision and record end kept (µs): the anchors of retention. */
  private newestDecision: bigint | undefined;
  private newestRecord: bigint | undefined;

  constructor(
    private readonly store: RetentionStore,
    private readonly health: Health,
    private readonly metrics: Metrics,
    /** The newest instants the store held at start. */
    newest: { readonly decision?: bigint | undefined; readonly record?: bigint | undefined } = {},
  ) {
    this.newestDecision = newest.decision;
    this.newestRecord = newest.record;
  }

  /** A decision at `t` was kept. */
  decided(t: bigint): void {
    if (this.newestDecision === undefined || t > this.newestDecision) this.newestDecision = t;
  }

  /** A new record ending at `end` was kept at `now` (an end ahead of the clock counts as now). */
  recorded(end: bigint, now: bigint): void {
    const at = end > now ? now : end;
    if (this.newestRecord === undefined || at > this.newestRecord) this.newestRecord = at;
  }

  /**
   * Prunes records older than `recordsMs` and decisions older than `decisionsMs`, both counted
   * back from the newest kept (or `now` when it is later), records never past `windowStart`. A
   * failure raises the `prune` cause of health (logged once) and prunes nothing.
   */
  async prune(
    now: bigint,
    windowStart: bigint,
    recordsMs: number,
    decisionsMs: number,
  ): Promise<PruneResult> {
    const anchor = (newest: bigint | undefined): bigint =>
      newest === undefined || newest > now ? now : newest;
    let recordsBefore = anchor(this.newestRecord) - BigInt(recordsMs) * 1000n;
    if (recordsBefore > windowStart) recordsBefore = windowStart;
    const decisionsBefore = anchor(this.newestDecision) - BigInt(decisionsMs) * 1000n;
    try {
      const r = await this.store.prune(recordsBefore, decisionsBefore);
      this.health.clear('prune');
      return r;
    } catch (e) {
      this.metrics.storeErrors.inc({ op: 'prune' });
      this.health.fail('prune', `pruning fails: ${describeError(e)}`);
      return { records: 0, decisions: 0, sets: 0 };
    }
  }
}
