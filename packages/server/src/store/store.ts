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

/** The newest instants a store holds (µs); `undefined` when it holds none. */
export interface NewestHeld {
  readonly decision: bigint | undefined;
  readonly record: bigint | undefined;
}

/** A blob served by digest: a policy, a room descriptor or a key log head. */
export type BlobKind = 'policy' | 'room' | 'key-log';

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
 * (clamped to 2^53 − 1) and its row id (the order it was stored).
 */
export interface DecisionCursor {
  readonly t: bigint;
  readonly id: number;
}

/** One page of the listing by time. */
export interface DecisionPage {
  readonly decisions: readonly ListedDecision[];
  /** The cursor of the next page (give it as `after`), or `null` after the last. */
  readonly next: DecisionCursor | null;
}

/** A site's capacity report as the store keeps it for every instance (`docs/live-policy.md`). */
export interface StoredCapacityReport {
  /** The pathway's ID. */
  readonly pathway: string;
  /** The hop's key, lowercase hexadecimal. */
  readonly hop: string;
  /** The report's `t`, room clock µs. */
  readonly t: bigint;
  /** The compact JWS as it was posted (every instance verifies it again). */
  readonly jws: string;
}

/**
 * How long after a policy was replaced in the order of policies an instance may still decide
 * under it (one that has not read the order yet: a second or so): its bytes are kept this much
 * longer than the decisions (µs).
 */
export const POLICY_LAG_US = 3_600_000_000n;

/**
 * A policy put in force for a room, as the store orders them: `seq` counts from 1, one row per
 * rotation, and the instance that writes `seq` first has put that policy in force for all.
 */
export interface PolicyClaim {
  readonly seq: number;
  /** The policy's digest (§3.4) and bytes. */
  readonly digest: Uint8Array;
  readonly bytes: Uint8Array;
  /** The operator's policy (the template) this one keeps the bounds of; its own digest if it is one. */
  readonly template: Uint8Array;
  /** When it was put in force, room clock µs. */
  readonly at: bigint;
  readonly by: 'operator' | 'live';
}

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
   * The decisions with `from` ≤ `t` < `to` (µs), in ascending `t` and, for equal `t`, in the
   * order they were stored (the row id), whatever order the instances committed them in; at
   * most `limit` of them, after the cursor `after` (`null`: from the start). The listing ends at
   * the first decision at or after `to`.
   */
  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<DecisionPage>;
  /** Every kept blob of that kind (policies, rooms, key log heads: a handful). */
  listBlobs(kind: BlobKind): Promise<{ readonly digest: Uint8Array; readonly bytes: Uint8Array }[]>;
  /**
   * Removes decisions decided before `decisionsBefore` (µs), with their evidence sets, and
   * records that ended before `recordsBefore` (µs) that no kept decision names (§8.4).
   */
  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult>;
  stats(): Promise<StoreStats>;
  /**
   * The newest instants the store holds, µs: the latest decision's `t`, and the latest `end` of
   * a record that ends at or before `notAfter`. The server checks its clock against them at
   * start (`guard/clock.ts`); a store without it is not checked.
   */
  newest?(notAfter: bigint): Promise<NewestHeld>;
  /**
   * The key log heads kept (`putBlob('key-log', …)`), in no order: the server checks the
   * configured head against the newest of them at start (`guard/key-log.ts`).
   */
  keyLogHeads?(): Promise<Uint8Array[]>;
  /**
   * Keeps a site's capacity report for the other instances, unless one of the same pathway and hop
   * with a `t` as late is kept; whether it was kept. (Both stores implement it; a store without it
   * keeps reports in the memory of each instance.)
   */
  putCapacityReport?(room: Uint8Array, report: StoredCapacityReport): Promise<boolean>;
  /** The capacity reports kept for the room: the latest of each pathway and hop. */
  capacityReports?(room: Uint8Array): Promise<StoredCapacityReport[]>;
  /**
   * Puts a policy in force for every instance: keeps its bytes and writes its claim, in one
   * transaction, unless `claim.seq` is written already (another instance rotated first); whether
   * it was written.
   */
  claimPolicy?(room: Uint8Array, claim: PolicyClaim): Promise<boolean>;
  /** The room's latest claim, `undefined` before the first. */
  policyInForce?(room: Uint8Array): Promise<PolicyClaim | undefined>;
  /** Closes the store; resolves once everything it holds (threads, connections) is released. */
  close(): Promise<void>;
}
