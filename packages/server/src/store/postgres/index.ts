/**
 * The shared store: PostgreSQL through `pg`, for several instances (or worker processes) of one
 * deployment. Plain SQL that PostgreSQL 15 runs. One module per concern, each with its SQL,
 * composed here over one set of connections (`context.ts`):
 *
 * - `decisions.ts`: the group commit, and the compact decisions (`sets`, `decisions`);
 * - `records.ts`: the per-hop records (`records`), and the catch-up query of the instances;
 * - `policies.ts`: the blobs (`blobs`) and the order of policies (`policy_rotations`);
 * - `live.ts`: the sites' capacity reports (`capacity_reports`);
 * - `log.ts` and `log-integration.ts`: the decision log (`log_*`);
 * - `retention.ts`: pruning by age;
 * - `health.ts`: sizes, the newest instants held;
 * - `schema.ts`: the migrations, and the daily partitions of `decisions`;
 * - `notices.ts`: the notifications of what the other instances committed.
 *
 * `instance_loads` is the loads heartbeat's (`../../instances/loads.ts`), through
 * {@link PgStore.query} and {@link PgStore.transaction}.
 */
import pg from 'pg';
import { describeError, type FaultSink } from '../../health.js';
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
import { connectWriter, PgContext, redact } from './context.js';
import { PgDecisions } from './decisions.js';
import { PgHealth } from './health.js';
import { PgLive } from './live.js';
import { PgLog } from './log.js';
import { PgLogIntegration } from './log-integration.js';
import { PgNotices, type StoreNotice } from './notices.js';
import { PgPolicies } from './policies.js';
import { PgRecords } from './records.js';
import { PgRetention } from './retention.js';
import { migrate, PgPartitions } from './schema.js';

export { redact } from './context.js';
export type { StoreNotice } from './notices.js';

/** Options of {@link PgStore.open}. */
export interface PgStoreOptions {
  /** Connections for reads (decisions, records and blobs served by digest); default 4. */
  readonly readers?: number;
  /** Days of partitions created ahead of today (and one behind); default 3. */
  readonly daysAhead?: number;
}

/** The shared store: PostgreSQL, for several instances of one deployment (`store.url`). */
export class PgStore implements SteeringStore {
  private readonly decisions: PgDecisions;
  private readonly records: PgRecords;
  private readonly policies: PgPolicies;
  private readonly live: PgLive;
  private readonly log: PgLog;
  private readonly logWrites: PgLogIntegration;
  private readonly retention: PgRetention;
  private readonly health: PgHealth;
  private readonly partitions: PgPartitions;
  private readonly notices: PgNotices;

  private constructor(
    private readonly ctx: PgContext,
    daysAhead: number,
  ) {
    this.partitions = new PgPartitions(ctx, daysAhead);
    this.records = new PgRecords(ctx);
    this.decisions = new PgDecisions(ctx, this.records);
    this.policies = new PgPolicies(ctx);
    this.live = new PgLive(ctx);
    this.log = new PgLog(ctx);
    this.logWrites = new PgLogIntegration(ctx, this.log);
    this.retention = new PgRetention(ctx, this.partitions, this.decisions, this.policies);
    this.health = new PgHealth(ctx);
    this.notices = new PgNotices(ctx);
  }

  /** The connection URL the store was opened with. */
  get url(): string {
    return this.ctx.url;
  }

  /**
   * Tells the faults of the store's connections to `sink` (`health.ts`): a connection of the pool
   * dropped (`store_queries`), the listening connection down and listening again
   * (`store_notifications`). Each is told as it happens; the sink logs a state change once.
   */
  reportFaultsTo(sink: FaultSink): void {
    this.ctx.faults = sink;
  }

  /** Connects, applies the migrations the database lacks, creates the partitions ahead. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const where = redact(url);
    let writer: pg.Client;
    try {
      writer = await connectWriter(url);
    } catch (e) {
      throw new Error(`${where}: cannot connect (${(e as Error).message})`);
    }
    const pool = new pg.Pool({ connectionString: url, max: options.readers ?? 4 });
    const ctx = new PgContext(url, writer, pool);
    const store = new PgStore(ctx, options.daysAhead ?? 3);
    // An idle connection of the pool that drops (the database restarted): the pool opens
    // another at the next query; told once until a query works again.
    pool.on('error', (e) =>
      ctx.faults.fail('store_queries', `a connection of the store dropped: ${describeError(e)}`),
    );
    try {
      await migrate(writer, where);
      await store.maintain(BigInt(Date.now()) * 1000n);
    } catch (e) {
      await store.close();
      throw e;
    }
    return store;
  }

  /**
   * Creates the daily partitions of `decisions` from the day before `nowUs` to `daysAhead` days
   * after it (`schema.ts`).
   */
  maintain(nowUs: bigint): Promise<void> {
    return this.partitions.maintain(nowUs);
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

  /** The catch-up query of the instances (`records.ts`). */
  recordsSince(
    horizon: string | undefined,
    end: bigint,
  ): Promise<{ records: StoredRecord[]; horizon: string }> {
    return this.records.recordsSince(horizon, end);
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

  // Retention (`retention.ts`) and health (`health.ts`).

  prune(recordsBefore: bigint, decisionsBefore: bigint): Promise<PruneResult> {
    return this.retention.prune(recordsBefore, decisionsBefore);
  }

  stats(): Promise<StoreStats> {
    return this.health.stats();
  }

  newest(notAfter: bigint): Promise<NewestHeld> {
    return this.health.newest(notAfter);
  }

  // Notifications (`notices.ts`), and the loads heartbeat's queries.

  /**
   * Calls `listener` for each record and blob committed from now on by any connection (this
   * instance's included). A notification can be lost (a dropped connection): the catch-up
   * query at each window move heals it.
   */
  subscribe(listener: (n: StoreNotice) => void): Promise<() => void> {
    return this.notices.subscribe(listener);
  }

  /** A query on the readers' pool (the loads' heartbeat uses it). */
  query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.ctx.pool.query<R>(sql, values);
  }

  /**
   * `fn` in one transaction on a connection of the pool (`BEGIN` … `COMMIT`, `ROLLBACK` when it
   * throws): the loads heartbeat's grant of slots under its lock (`instances/loads.ts`).
   */
  async transaction<T>(
    fn: (
      q: <R extends pg.QueryResultRow>(
        sql: string,
        values: unknown[],
      ) => Promise<pg.QueryResult<R>>,
    ) => Promise<T>,
  ): Promise<T> {
    const c = await this.ctx.hold();
    try {
      await c.query('BEGIN');
      const value = await fn((sql, values) => c.query(sql, values));
      await c.query('COMMIT');
      return value;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async close(): Promise<void> {
    const ctx = this.ctx;
    if (ctx.closed) return;
    ctx.closed = true;
    await Promise.allSettled([ctx.writer.end(), ctx.pool.end(), this.notices.close()]);
  }
}
