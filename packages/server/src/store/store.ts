/**
 * What the steering server keeps: the per-hop records it accepted (the evidence, served at
 * `/records/<digest>`), the decisions it signed (served at the policy's `decision_uri`, §8.4),
 * and the policies, room descriptors and key log heads it served them under.
 */

/** A per-hop record as stored: its digest (C1), its bytes, and the fields its queries need. */
export interface StoredRecord {
  readonly digest: Uint8Array;
  readonly bytes: Uint8Array;
  readonly hop: Uint8Array;
  /** C5.1 `start` and `end`, room clock µs. */
  readonly start: bigint;
  readonly end: bigint;
}

/**
 * A signed decision to keep: its bytes, or (from an encoder that cut it already) its evidence set
 * and tail (`store/compact.ts`), with its digest.
 */
export type StoredDecision =
  | {
      /** The `WSD1` bytes. */
      readonly bytes: Uint8Array;
      /** Its digest (§7.3). */
      readonly digest: Uint8Array;
      /** Its evidence set, when known (then compared by identity first). */
      readonly set?: Uint8Array;
    }
  | {
      readonly digest: Uint8Array;
      /**
       * Its evidence set: decisions over one evidence object pass the same object, which the
       * store then need not compare byte by byte.
       */
      readonly set: Uint8Array;
      /** Its tail: the decision's own fields and `sig`. */
      readonly tail: Uint8Array;
    };

/** One write of the group commit: accepted records, then signed decisions, in one transaction. */
export interface CommitBatch {
  readonly records: readonly StoredRecord[];
  /** Signed `WSD1` records with their digests, in the order they were decided. */
  readonly decisions: readonly StoredDecision[];
}

/** What a commit wrote: how many records were new (the others were held already). */
export interface CommitResult {
  /** For each record of the batch, whether it was new. */
  readonly inserted: readonly boolean[];
}

/** What a pruning pass removed. */
export interface PruneResult {
  readonly records: number;
  readonly decisions: number;
  readonly sets: number;
}

/** Sizes, for metrics and the bench. */
export interface StoreStats {
  readonly records: number;
  readonly decisions: number;
  readonly sets: number;
  /** Bytes the store occupies (database pages, WAL excluded). */
  readonly bytes: number;
}

/** A blob served by digest: a policy, a room descriptor or a key log head. */
export type BlobKind = 'policy' | 'room' | 'key-log';

/**
 * The store. Every method is asynchronous, so that a store over the network (a database
 * server) implements it as well as the embedded one, which is synchronous inside and answers
 * in a resolved promise. Every write is durable when `commit`'s promise resolves (to the
 * configured level: see `docs/server.md`, *Durability*). Reads never see a half-written batch.
 *
 * The group commit (`commit.ts`) has one `commit` in flight at a time: a store need not order
 * concurrent commits.
 */
export interface SteeringStore {
  /** Writes a batch in one transaction; durable when it resolves. */
  commit(batch: CommitBatch): Promise<CommitResult>;
  /** The `WMH1` bytes of the record of `digest`. */
  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /** The exact `WSD1` bytes of the decision of `digest`, rebuilt and checked against it. */
  getDecision(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * Records whose `end` is above `end` (µs): those a current or later window may name, in order
   * of `start`. An async iterable, so that a store may stream them in pages.
   */
  recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord>;
  /** Keeps a policy, room descriptor or key log head (idempotent by digest). */
  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void>;
  /** A kept blob of that kind. */
  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * Removes decisions decided before `decisionsBefore` (µs), with their evidence sets, and
   * records that ended before `recordsBefore` (µs) that no kept decision names (§8.4).
   */
  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult>;
  stats(): Promise<StoreStats>;
  /** Closes the store; resolves once everything it holds (threads, connections) is released. */
  close(): Promise<void>;
}
