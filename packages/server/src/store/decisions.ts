/**
 * The decisions concern of the store: the decisions it signed (served at the policy's
 * `decision_uri`, §8.4), written by the group commit with the records accepted since the last
 * one, read by digest and listed by time.
 */
import type { StoreDamagedError } from './errors.js';
import type { StoredRecord } from './records.js';

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

/** A decision as the listing by time gives it (§8.4, `docs/audit.md`). */
export interface ListedDecision {
  /** Its digest (§7.3). */
  readonly digest: Uint8Array;
  /** Its `t`, room clock µs. */
  readonly t: bigint;
  /** Its exact `WSD1` bytes. */
  readonly bytes: Uint8Array;
}

/**
 * A place in the listing by time: the last decision of a page, by its `t` as the store orders it
 * (clamped to the column's range), then its place among decisions of equal `t`, which is the
 * decision log's order: the committing transaction (`xid`, PostgreSQL's; 0 on SQLite, which
 * commits one transaction at a time) and the row id (the order within it).
 */
export interface DecisionCursor {
  readonly t: bigint;
  readonly xid: bigint;
  readonly id: number;
}

/** One page of the listing by time. */
export interface DecisionPage {
  readonly decisions: readonly ListedDecision[];
  /** The cursor of the next page (give it as `after`), or `null` after the last. */
  readonly next: DecisionCursor | null;
}

/**
 * A decision as the store keeps it (`compact.ts`): its window's evidence set and its tail, the
 * exact bytes once joined (`joinDecision(set, tail)`).
 */
export interface KeptDecision {
  /** Its `t`, room clock µs. */
  readonly t: bigint;
  /** Its window's evidence set: decisions of one set read together share one object. */
  readonly set: Uint8Array;
  /** Its tail: its own fields and `sig`. */
  readonly tail: Uint8Array;
  /** The instance whose commit wrote it (the store's `instance` option); `null` when none was. */
  readonly instance: number | null;
}

/**
 * The group commit and the decisions' reads. The group commit (`engine/commit.ts`) has one
 * `commit` in flight at a time: a store need not order concurrent commits.
 */
export interface DecisionStore {
  /**
   * Writes a batch in one transaction; durable when it resolves. Each decision of the batch is
   * appended to the decision log's pending entries in the same transaction, in the batch's order.
   */
  commit(batch: CommitBatch): Promise<CommitResult>;
  /**
   * The exact `WSD1` bytes of the decision of `digest`, rebuilt and checked against it; rejects
   * with {@link StoreDamagedError} when a row kept under the digest does not rebuild the digest
   * it is kept under and none does.
   */
  getDecision(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * The decisions with `from` ≤ `t` < `to` (µs) in ascending `t`, decisions of equal `t` in the
   * decision log's order (whatever order the instances committed them in), at most `limit` of
   * them, after the cursor `after` (`null`: from the start). Rejects with
   * {@link StoreDamagedError} at a row that does not rebuild the digest it is kept under (never
   * a digest the server did not sign, nor a gap).
   */
  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<DecisionPage>;
  /**
   * The decisions with `from` ≤ `t` < `to` (µs) in the listing's order (ascending `t`, equal `t`
   * in the decision log's order), as kept, a page of at most `page` at a time (default 4 096):
   * their bytes are not joined nor their digests checked (the session table's rebuild at start,
   * `engine/rebuild.ts`, reads a million of them). Decisions committed while it runs may or may
   * not be read.
   */
  readDecisions(from: bigint, to: bigint, page?: number): AsyncIterable<readonly KeptDecision[]>;
}
