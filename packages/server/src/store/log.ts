/**
 * The log concern of the store: the decision log's head, entries, tiles, checkpoints,
 * cosignatures and the integrator's lease (`docs/server.md`, *The decision log*). Each decision
 * is appended to its pending entries by the group commit (`DecisionStore.commit`); the
 * integrator (`src/log/integrator.ts`) integrates them.
 */

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

/** The decision log's reads and writes. */
export interface LogStore extends LogReads, LogWrites {}
