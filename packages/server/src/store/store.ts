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
 * A row of the store that does not rebuild the digest it is kept under (its bytes were altered
 * inside the database, past what SQLite's `quick_check` sees): thrown by a read that finds one
 * and nothing sound in its place, so that damage is never answered as an absence.
 */
export class StoreDamagedError extends Error {
  override readonly name = 'StoreDamagedError';
  constructor(
    /** What the row holds. */
    readonly what: 'decision' | 'record' | 'policy',
    /** The digest asked for, in hex; or, from the listing, the row's key (its first 8 bytes). */
    readonly digest: string,
  ) {
    super(
      `the store keeps a damaged ${what} row for ${digest}: its bytes do not rebuild its digest`,
    );
  }
}

/**
 * A write the operator asked for (a reload's policy or key log head) that the store did not
 * take: the store failed, not the file (`POST /admin/reload` answers 503, not 409).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
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
 * The decision log (`docs/server.md`, *The decision log*): a tiled transparency log (C2SP
 * tlog-tiles) of every decision the store keeps, one 40-byte entry each (`t` u64 little-endian,
 * then the decision's digest), in the order of their commits. The store keeps its head, its
 * entries as entry bundles with each one's index by its digest, its tiles of level 1 and above,
 * and its checkpoints; level-0 tiles are derived from the bundles (`src/log/reader.ts`).
 */
export interface LogHead {
  /** The log's origin (tlog-checkpoint), fixed when the log begins. */
  readonly origin: string;
  /** Entries integrated. */
  readonly size: bigint;
  /** RFC 6962 root of the tree of `size` entries. */
  readonly root: Uint8Array;
  /**
   * tlog-tiles' minimum index: tiles and bundles whose end index is at or below it are not
   * served (their entries were pruned with the decisions). 0 before any pruning.
   */
  readonly minIndex: bigint;
}

/** A checkpoint the log signed, as kept. */
export interface StoredCheckpoint {
  readonly size: bigint;
  /**
   * When the integrator read the pending entries it holds, µs since the epoch (the room clock of
   * the instance that signed it): every decision committed `log.max_delay` or more before it is
   * in the tree.
   */
  readonly issued: bigint;
  /** The signed note (tlog-checkpoint), with the witnesses' cosignatures gathered so far. */
  readonly text: string;
}

/** An entry of the log, with its index. */
export interface LogEntryRow {
  readonly index: bigint;
  /** The decision's `t`, µs (the entry's first 8 bytes). */
  readonly t: bigint;
  /** The decision's digest (§7.3). */
  readonly digest: Uint8Array;
}

/** What the integrator is given inside the store's transaction (see {@link LogWrites.integrateLog}). */
export interface LogPlanInput {
  readonly head: LogHead;
  /**
   * The entries to append (40 bytes each), in the log's order: the pending ones, a digest the log
   * holds already (or twice in the batch) left out.
   */
  readonly entries: readonly Uint8Array[];
  /** The log's right edge as stored: what `@wai-steering/tlog`'s `LogState` is made of. */
  readonly edge: {
    /** The entries of the partial bundle: the last `size mod 256`. */
    readonly entries: readonly Uint8Array[];
    /** The partial tile of each level from 1 up, by level (its hashes' bytes). */
    readonly tiles: ReadonlyMap<number, Uint8Array>;
  };
  /**
   * Whether the log holds every pending decision it must once these are appended: `false` when
   * more remain past the batch's limit, or when a decision committed `maxDelayMs` or more ago
   * is held back (PostgreSQL: its transaction is above the snapshot's horizon). A checkpoint is
   * signed only when `true`.
   */
  readonly complete: boolean;
  /** The size of the latest checkpoint, `undefined` before the first. */
  readonly checkpointed: bigint | undefined;
}

/**
 * What the integrator writes: the new head, the entry bundles and tiles of level ≥ 1 it changed,
 * and maybe a checkpoint.
 */
export interface LogPlan {
  readonly size: bigint;
  readonly root: Uint8Array;
  /** Entry bundles: each full one completed, and the new partial one (tlog-tiles' bytes). */
  readonly bundles: readonly { readonly index: bigint; readonly data: Uint8Array }[];
  /** Tiles of level 1 and above: each full tile completed, and each partial tile changed. */
  readonly tiles: readonly {
    readonly level: number;
    readonly index: bigint;
    readonly data: Uint8Array;
  }[];
  readonly checkpoint?: { readonly issued: bigint; readonly text: string };
}

/** What an integration wrote. */
export interface LogIntegrated {
  /** Entries appended (pending ones already logged are not counted). */
  readonly appended: number;
  readonly size: bigint;
  /** The checkpoint signed, when one was. */
  readonly checkpoint?: StoredCheckpoint;
  /** Whether pending entries remain past the batch's limit (integrate again at once). */
  readonly more: boolean;
}

/**
 * The decision log's reads, for the server's routes and for any reader of the store (the
 * archive's export reads the latest checkpoint, then the entries `0 … size − 1`).
 */
export interface LogReads {
  /** The log's head; `undefined` before it begins ({@link LogWrites.beginLog}). */
  logHead(): Promise<LogHead | undefined>;
  /**
   * The latest checkpoint, with its cosignatures. It holds every decision committed
   * `log.max_delay` or more before its `issued`: a reader of a span of decisions ending at `to`
   * waits for one issued at or after `to` + `log.max_delay`.
   */
  latestLogCheckpoint(): Promise<StoredCheckpoint | undefined>;
  /** The kept checkpoints of size ≥ `fromSize`, by size, at most `limit`. */
  logCheckpoints(fromSize: bigint, limit: number): Promise<StoredCheckpoint[]>;
  /**
   * The entries of index `from` ≤ index < `to` that are kept, by index (at most `to − from`; a
   * caller reads a large log a page at a time).
   */
  logEntries(from: bigint, to: bigint): Promise<LogEntryRow[]>;
  /**
   * The index of the entry of a decision (its `t` and its digest), `undefined` when the log has
   * none (the entries are found by `t`, then the digest).
   */
  logIndexOf(t: bigint, digest: Uint8Array): Promise<bigint | undefined>;
  /**
   * The hashes of tile `index` of `level` (1 and above) as of the latest integration: 32 bytes
   * each, 256 once full. Level 0 is derived from the entries.
   */
  logTile(level: number, index: bigint): Promise<Uint8Array | undefined>;
}

/** The decision log's writes: the integrator's (`src/log/integrator.ts`). */
export interface LogWrites {
  /**
   * Begins the log with `origin` unless it has begun; the origin it has (the first instance's).
   */
  beginLog(origin: string): Promise<string>;
  /**
   * Takes or renews the integrator's lease for `holder`, for `ms` from now (the database's
   * clock on PostgreSQL): `true` when `holder` holds it now, `false` when another does.
   */
  takeLogLease(holder: string, ms: number): Promise<boolean>;
  /** Gives the lease up, when `holder` holds it (an instance that stops cleanly). */
  releaseLogLease(holder: string): Promise<void>;
  /**
   * One integration, in one transaction: the head locked, the pending decisions committed
   * before it read in the order of their commits (at most about `maxEntries`), those the log
   * holds already left out; `plan` (synchronous, no I/O) computes the new head, the tiles and the
   * checkpoint; the entries, tiles, checkpoint and head are written and the pending rows deleted.
   * A crash at any point leaves all of it or none. `undefined` when nothing was pending and the
   * latest checkpoint is of the head's size.
   */
  integrateLog(
    plan: (input: LogPlanInput) => LogPlan,
    options: { readonly maxEntries: number; readonly maxDelayMs: number },
  ): Promise<LogIntegrated | undefined>;
  /** Replaces the text of checkpoint `size` by `text` (the same note with cosignatures added). */
  addLogCosignatures(size: bigint, text: string): Promise<void>;
  /**
   * Prunes the log with the decisions: the checkpoints issued before `issuedBefore` go but the
   * latest; the minimum index becomes the size of the latest of them, and the entry bundles
   * wholly below it go (with the level-0 tiles derived from them; their hashes stay in the tiles
   * of level 1). Consistency between any two kept checkpoints, and the inclusion of every entry
   * at or above the minimum index, stay provable.
   */
  pruneLog(
    issuedBefore: bigint,
  ): Promise<{ readonly minIndex: bigint; readonly entries: number; readonly checkpoints: number }>;
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
export interface SteeringStore extends LogReads, LogWrites {
  /**
   * Writes a batch in one transaction; durable when it resolves. Each decision of the batch is
   * appended to the decision log's pending entries in the same transaction, in the batch's order.
   */
  commit(batch: CommitBatch): Promise<CommitResult>;
  /** The `WMH1` bytes of the record of `digest`. */
  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * The exact `WSD1` bytes of the decision of `digest`, rebuilt and checked against it; rejects
   * with {@link StoreDamagedError} when a row kept under the digest does not rebuild the digest
   * it is kept under and none does.
   */
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
