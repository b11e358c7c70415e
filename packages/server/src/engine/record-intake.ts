/**
 * The records' part of ingest (companion C5), around the engine's steps (`engine.ts`, `ingest`):
 * a refusal counted and told to the observer; a record outside the horizon (`guard/horizon.ts`)
 * answered as held when the store holds it already; a record durable taken into the evidence
 * index (`evidence-index.ts`), kept by retention, announced to the other instances, counted, and
 * said unused when no decision the server will make names it (`unused.ts`).
 */
import { type HopRecord, type Policy, type Refusal, readHopRecord } from '@wai-steering/wire';
import { EnergyCounters } from '../energy/counters.js';
import type { HorizonRefusal } from '../guard/horizon.js';
import type { InstanceLink } from '../instances/link.js';
import type { Metrics } from '../metrics.js';
import type { StoredRecord } from '../store/store.js';
import type { EvidenceIndex } from './evidence-index.js';
import type { StoreReads } from './reads.js';
import type { Retention } from './retention.js';
import type { EngineObserver, IngestResult, RecordRefused } from './types.js';
import { unusedReason } from './unused.js';

/** What {@link RecordIntake} reads and tells. */
export interface RecordIntakeOptions {
  readonly metrics: Metrics;
  readonly reads: StoreReads;
  readonly index: EvidenceIndex;
  readonly retention: Retention;
  readonly observer: EngineObserver | undefined;
  /** The other instances of the deployment, when there are any. */
  readonly link: () => InstanceLink | undefined;
  /** The policy in force. */
  readonly policy: () => Policy;
}

/** The steps of ingest before and after the group commit. */
export class RecordIntake {
  /** Each pathway's joules and delivery, from the records taken (`/metrics`). */
  private readonly energy: EnergyCounters;

  constructor(private readonly o: RecordIntakeOptions) {
    this.energy = new EnergyCounters(o.metrics);
  }

  /** A record refused (C5, C7): counted by reason, told to the observer with its hop if it reads. */
  refused(refusal: Refusal, bytes: Uint8Array): RecordRefused {
    const { reason, where } = refusal;
    this.o.metrics.refused.inc({ reason });
    if (this.o.observer !== undefined) {
      const read = readHopRecord(bytes);
      this.o.observer.ingested(read.ok ? read.value.hop : null, { refused: reason });
    }
    return { kind: 'refused', reason, where: { ...where }, message: refusal.message };
  }

  /**
   * A record outside the horizon: `undefined` when the store holds it already (it is answered as
   * held, whatever the horizon says now), else `outside` (counted), or `store_unavailable`.
   */
  async outside(refusal: HorizonRefusal, digest: Uint8Array): Promise<IngestResult | undefined> {
    const held = await this.o.reads.record(digest);
    if (held.kind === 'store_unavailable') return held;
    if (held.kind === 'found') return undefined;
    this.o.metrics.horizonRefused.inc({ error: refusal.error });
    return { kind: 'outside', refusal };
  }

  /** A record durable (`inserted`: new to the store): evidence now, and the result said. */
  taken(stored: StoredRecord, record: HopRecord, inserted: boolean, now: bigint): IngestResult {
    // Durable now: the next window move may name it (`evidence-index.ts`).
    this.o.index.take(record, stored.digest);
    if (inserted) {
      this.o.retention.recorded(record.end, now);
      this.o.link()?.stored?.(stored);
      this.energy.count(this.o.policy(), record);
    }
    this.o.metrics.ingested.inc({ result: inserted ? 'new' : 'duplicate' });
    this.o.observer?.ingested(record.hop, inserted ? 'new' : 'duplicate', record);
    // Taken, but named by no decision the server will make (`unused.ts`): said, so that a hop's
    // operator sees it.
    const unused = unusedReason(this.o.policy(), record, now);
    return {
      kind: 'stored',
      digest: stored.digest,
      inserted,
      record,
      ...(unused === undefined ? {} : { unused }),
    };
  }
}
