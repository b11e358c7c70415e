/**
 * The evidence index (§5): the per-hop records a current or later window may name, held in
 * memory by hop and start, with the records' horizon (`guard/horizon.ts`) they count against. A
 * record comes in by ingest (posted here), by the feed (another instance stored it) or from the
 * store at start; one of the window in use makes the window's evidence be selected again, so that
 * the window's later decisions name it.
 */
import { inWindow, MemoryEvidenceStore, windowAt } from '@wai-steering/evidence';
import { type HopRecord, readHopRecord } from '@wai-steering/wire';
import { RecordHorizon } from '../guard/horizon.js';
import type { RecordStore } from '../store/store.js';
import type { InForce } from './in-force.js';

/** The records' horizon, ms (`records.*` of the configuration). */
export interface HorizonLimits {
  readonly maxAheadMs: number;
  readonly retentionMs: number;
  readonly maxPerPeriod: number;
}

/** The defaults: 1 min ahead of the room clock, 7 days back, 4 records a hop and period. */
export const DEFAULT_HORIZON: HorizonLimits = Object.freeze({
  maxAheadMs: 60_000,
  retentionMs: 7 * 86_400_000,
  maxPerPeriod: 4,
});

export class EvidenceIndex {
  /** The records held, by hop and start. */
  readonly records = new MemoryEvidenceStore();
  readonly horizon: RecordHorizon;
  private readonly retentionUs: bigint;

  constructor(
    policy: InForce['policy'],
    limits: HorizonLimits,
    /** The policy in force now: its window, and its cache to invalidate. */
    private readonly inForce: () => InForce,
    private readonly now: () => bigint,
  ) {
    this.retentionUs = BigInt(limits.retentionMs) * 1000n;
    this.horizon = new RecordHorizon({
      periodUs: policy.period_us,
      windowUs: policy.window_us,
      maxAheadUs: BigInt(limits.maxAheadMs) * 1000n,
      retentionUs: this.retentionUs,
      maxPerPeriod: limits.maxPerPeriod,
    });
  }

  /** Records held. */
  get size(): number {
    return this.records.size;
  }

  /**
   * Takes a verified record (durable in the store): whether it was new here. A record of the
   * window in use (it arrived after its lag L, or before the first decision of the window after a
   * restart) makes that window's evidence be selected again.
   */
  take(record: HopRecord, digest: Uint8Array): boolean {
    if (!this.records.add(record, digest)) return false;
    this.horizon.taken(record);
    const under = this.inForce();
    if (inWindow(record, windowAt(under.policy, this.now()))) under.cache.invalidate();
    return true;
  }

  /** A record's bytes another instance stored (it verified them): whether it was new here. */
  learn(bytes: Uint8Array, digest: Uint8Array): boolean {
    const read = readHopRecord(bytes);
    return read.ok && this.take(read.value, digest);
  }

  /** The records of the store a current or later window may name (at start). */
  async load(store: RecordStore): Promise<void> {
    const { a } = windowAt(this.inForce().policy, this.now());
    for await (const r of store.recordsEndingAfter(a)) {
      const read = readHopRecord(r.bytes);
      if (read.ok && this.records.add(read.value, r.digest)) this.horizon.taken(read.value);
    }
  }

  /** Drops what no later window can name, and the horizon's counts past retention. */
  prune(now: bigint): void {
    this.records.prune(windowAt(this.inForce().policy, now).a);
    this.horizon.prune(now - this.retentionUs);
  }
}
