/**
 * The embedded store: SQLite through `better-sqlite3`, in WAL mode. One module per concern, each
 * with its tables and statements, composed here over one connection (`context.ts`):
 *
 * - `decisions.ts`: the group commit, and the compact decisions (`sets`, `decisions`), with
 *   their index by key merged in batches (`decision-keys.ts`, `decision_keys`);
 * - `records.ts`: the per-hop records (`records`);
 * - `policies.ts`: the blobs (`blobs`: policies, room descriptors, key log heads) and the order
 *   of policies (`policy_rotations`);
 * - `live.ts`: the sites' capacity reports (`capacity_reports`);
 * - `log.ts` and `log-integration.ts`: the decision log (`log_*`);
 * - `retention.ts`: pruning by age;
 * - `health.ts`: sizes, the newest instants held, the files' state, `quick_check`;
 * - `schema.ts`: the tables, made or migrated when the store opens.
 *
 * The store interface is asynchronous (`../store.ts`); SQLite here is synchronous inside, each
 * method answering in a settled promise. Durability: `context.ts`.
 */
import type { CommitBatch, CommitResult, DecisionCursor, DecisionPage } from '../decisions.js';
import type { NewestHeld, StoreStats } from '../health.js';
import type { StoredCapacityReport } from '../live.js';
import type {
  LogEntryRow,
  LogHead,
  LogIntegrated,
  LogPlan,
  LogPlanInput,
  StoredCheckpoint,
} from '../log.js';
import type { BlobKind, PolicyClaim } from '../policies.js';
import type { StoredRecord } from '../records.js';
import type { PruneResult } from '../retention.js';
import type { SteeringStore } from '../store.js';
import { SqliteContext, type SqliteStoreOptions } from './context.js';
import { SqliteDecisions } from './decisions.js';
import { SqliteHealth, type StoreFileState } from './health.js';
import { SqliteLive } from './live.js';
import { SqliteLog } from './log.js';
import { SqliteLogIntegration } from './log-integration.js';
import { SqlitePolicies } from './policies.js';
import { SqliteRecords } from './records.js';
import { SqliteRetention } from './retention.js';
import { migrate } from './schema.js';

export type { SqliteStoreOptions } from './context.js';
export type { StoreFileState } from './health.js';
export { StoreSchemaError } from './schema.js';

/** The embedded store: SQLite in WAL mode (`store.path`). */
export class SqliteStore implements SteeringStore {
  readonly path: string;
  private readonly ctx: SqliteContext;
  private readonly decisions: SqliteDecisions;
  private readonly records: SqliteRecords;
  private readonly policies: SqlitePolicies;
  private readonly live: SqliteLive;
  private readonly log: SqliteLog;
  private readonly logWrites: SqliteLogIntegration;
  private readonly retention: SqliteRetention;
  private readonly health: SqliteHealth;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    const ctx = new SqliteContext(path, options);
    this.ctx = ctx;
    migrate(ctx.db);
    ctx.startCheckpointer(options);
    this.records = new SqliteRecords(ctx);
    this.decisions = new SqliteDecisions(ctx, this.records, options);
    this.policies = new SqlitePolicies(ctx);
    this.live = new SqliteLive(ctx);
    this.log = new SqliteLog(ctx);
    this.logWrites = new SqliteLogIntegration(this.log);
    this.retention = new SqliteRetention(ctx, this.decisions, this.policies);
    this.health = new SqliteHealth(ctx);
    if (!ctx.memory) this.health.watch(path);
  }

  /**
   * @internal Whether a commit writes the decision log's pending entries (always, but in the
   * server's bench, which switches it between rounds: `SqliteStoreOptions.logAppend`).
   */
  get logAppend(): boolean {
    return this.decisions.logAppend;
  }

  set logAppend(on: boolean) {
    this.decisions.logAppend = on;
  }

  // Decisions and the group commit (`decisions.ts`).

  commit(batch: CommitBatch): Promise<CommitResult> {
    return this.decisions.commit(batch);
  }

  getDecision(digest: Uint8Array): Promise<Uint8Array | undefined> {
    return this.decisions.getDecision(digest);
  }

  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<DecisionPage> {
    return this.decisions.listDecisions(from, to, after, limit);
  }

  /**
   * @internal For tests: resolves when no merge of `decision_keys` is under way; with `now`,
   * starts one first (whatever the decisions after `keys_through`).
   */
  keyMergeSettled(now = false): Promise<void> {
    return this.decisions.keys.settled(now);
  }

  // Records (`records.ts`).

  getRecord(digest: Uint8Array): Promise<Uint8Array | undefined> {
    return this.records.getRecord(digest);
  }

  recordsEndingAfter(end: bigint): AsyncIterable<StoredRecord> {
    return this.records.recordsEndingAfter(end);
  }

  recordsOfHops(
    hops: readonly Uint8Array[],
    after: bigint,
    through: bigint,
  ): Promise<StoredRecord[]> {
    return this.records.recordsOfHops(hops, after, through);
  }

  // Blobs and the order of policies (`policies.ts`).

  putBlob(kind: BlobKind, digest: Uint8Array, bytes: Uint8Array): Promise<void> {
    return this.policies.putBlob(kind, digest, bytes);
  }

  getBlob(kind: BlobKind, digest: Uint8Array): Promise<Uint8Array | undefined> {
    return this.policies.getBlob(kind, digest);
  }

  listBlobs(kind: BlobKind): Promise<{ digest: Uint8Array; bytes: Uint8Array }[]> {
    return this.policies.listBlobs(kind);
  }

  /** The key log heads kept (`putBlob('key-log', …)`), in no order. */
  keyLogHeads(): Promise<Uint8Array[]> {
    return this.policies.keyLogHeads();
  }

  claimPolicy(room: Uint8Array, claim: PolicyClaim): Promise<boolean> {
    return this.policies.claimPolicy(room, claim);
  }

  policyInForce(room: Uint8Array): Promise<PolicyClaim | undefined> {
    return this.policies.policyInForce(room);
  }

  policyClaims(room: Uint8Array): Promise<PolicyClaim[]> {
    return this.policies.policyClaims(room);
  }

  // Live capacity (`live.ts`).

  putCapacityReport(room: Uint8Array, report: StoredCapacityReport): Promise<boolean> {
    return this.live.putCapacityReport(room, report);
  }

  capacityReports(room: Uint8Array): Promise<StoredCapacityReport[]> {
    return this.live.capacityReports(room);
  }

  // The decision log (`log.ts`, `log-integration.ts`).

  logHead(): Promise<LogHead | undefined> {
    return this.log.logHead();
  }

  beginLog(origin: string): Promise<string> {
    return this.log.beginLog(origin);
  }

  takeLogLease(holder: string, ms: number): Promise<boolean> {
    return this.log.takeLogLease(holder, ms);
  }

  releaseLogLease(holder: string): Promise<void> {
    return this.log.releaseLogLease(holder);
  }

  integrateLog(
    plan: (input: LogPlanInput) => LogPlan,
    options: { readonly maxEntries: number; readonly maxDelayMs: number },
  ): Promise<LogIntegrated | undefined> {
    return this.logWrites.integrateLog(plan, options);
  }

  addLogCosignatures(size: bigint, text: string): Promise<void> {
    return this.log.addLogCosignatures(size, text);
  }

  pruneLog(
    issuedBefore: bigint,
  ): Promise<{ minIndex: bigint; entries: number; checkpoints: number }> {
    return this.logWrites.pruneLog(issuedBefore);
  }

  latestLogCheckpoint(): Promise<StoredCheckpoint | undefined> {
    return this.log.latestLogCheckpoint();
  }

  logCheckpoints(fromSize: bigint, limit: number): Promise<StoredCheckpoint[]> {
    return this.log.logCheckpoints(fromSize, limit);
  }

  logEntries(from: bigint, to: bigint): Promise<LogEntryRow[]> {
    return this.log.logEntries(from, to);
  }

  logIndexOf(t: bigint, digest: Uint8Array): Promise<bigint | undefined> {
    return this.log.logIndexOf(t, digest);
  }

  logTile(level: number, index: bigint): Promise<Uint8Array | undefined> {
    return this.log.logTile(level, index);
  }

  // Retention (`retention.ts`).

  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    return this.retention.prune(recordsBefore, decisionsBefore);
  }

  // Health (`health.ts`).

  stats(): Promise<StoreStats> {
    return this.health.stats();
  }

  /**
   * The newest instants the store holds, µs: the latest decision's `t` and the latest `end` of a
   * record that ends at or before `notAfter` (records that end later are not evidence of the
   * clock). `undefined` when none.
   */
  newest(notAfter: bigint): Promise<NewestHeld> {
    return this.health.newest(notAfter);
  }

  /**
   * Whether the database file is still the one opened: `replaced` when another inode sits at the
   * path, `removed` when none does or the open inode has no link left (`fstat` gives `nlink` 0);
   * and likewise its `-wal` and `-shm` (`wal_removed`, `wal_replaced`), once they exist. Always
   * `ok` for `:memory:`.
   */
  fileState(): StoreFileState {
    return this.health.fileState();
  }

  /**
   * SQLite's `quick_check` on this connection: `[]` when the database is sound, else the problems
   * it names (at most `max`). May take time on a large store: see `store/open.ts`.
   */
  quickCheck(max = 8): string[] {
    return this.health.quickCheck(max);
  }

  /** Runs a WAL checkpoint (TRUNCATE): the bench measures the database file after it. */
  checkpoint(): void {
    this.ctx.checkpoint();
  }

  /**
   * Closes the store. The checkpointer is told to close its connection (a checkpoint under way
   * finishes first); the promise resolves once it has.
   */
  close(): Promise<void> {
    this.health.close();
    this.ctx.close();
    return this.ctx.whenClosed();
  }

  /** Resolves once the store and its checkpointer are closed. */
  whenClosed(): Promise<void> {
    return this.ctx.whenClosed();
  }
}
