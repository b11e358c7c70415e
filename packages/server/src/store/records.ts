/**
 * The records concern of the store: the per-hop records it accepted (the evidence, served at
 * `/records/<digest>`), written by the group commit (`DecisionStore.commit`, `decisions.ts`) and
 * read by digest and by window.
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

/** The records' reads (they are written with the decisions, in `DecisionStore.commit`). */
export interface RecordStore {
  /** The `WMH1` bytes of the record of `digest`. */
  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * Records whose `end` is above `end` (µs): those a current or later window may name, in order
   * of `start`. An async iterable, so that a store may stream them in pages.
   */
  recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord>;
  /**
   * The records of the hops `hops` (keys) whose `end` lies in (`after`, `through`] (µs), in
   * ascending `start` (then digest): a page of the energy account's read of a span
   * (`energy/records.ts` pages by `end`, which the stores index, and restores the order of
   * `start` across pages).
   */
  recordsOfHops(
    hops: readonly Uint8Array[],
    after: bigint,
    through: bigint,
  ): Promise<StoredRecord[]>;
}
