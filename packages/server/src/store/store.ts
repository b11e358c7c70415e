/**
 * What the steering server keeps: the per-hop records it accepted (the evidence, served at
 * `/records/<digest>`), the decisions it signed (served at the policy's `decision_uri`, §8.4),
 * and the policies, room descriptors and key log heads it served them under; the decision log
 * over the decisions; the sites' capacity reports.
 *
 * One interface per concern, each in its own module beside this one, composed here into
 * {@link SteeringStore}; each backend implements them in a module of the same name
 * (`sqlite/`, `postgres/`), and a collaborator of the engine is given the concerns it touches:
 *
 * | module | interface | what it keeps |
 * |---|---|---|
 * | `decisions.ts` | `DecisionStore` | the group commit; the decisions, by digest and by time |
 * | `records.ts` | `RecordStore` | the per-hop records |
 * | `policies.ts` | `PolicyStore` (`BlobStore`) | policies, rooms, key log heads; the order of policies |
 * | `live.ts` | `LiveStore` | the sites' capacity reports |
 * | `log.ts` | `LogStore` (`LogReads`, `LogWrites`) | the decision log |
 * | `retention.ts` | `RetentionStore` | pruning by age |
 * | `health.ts` | `HealthStore` | sizes, the newest instants held |
 *
 * The schema is each backend's own (`sqlite/schema.ts`, `postgres/schema.ts`): applied when the
 * store opens, it has no method here.
 */
import type { DecisionStore } from './decisions.js';
import type { HealthStore } from './health.js';
import type { LiveStore } from './live.js';
import type { LogStore } from './log.js';
import type { PolicyStore } from './policies.js';
import type { RecordStore } from './records.js';
import type { RetentionStore } from './retention.js';

export type {
  CommitBatch,
  CommitResult,
  DecisionCursor,
  DecisionPage,
  DecisionStore,
  KeptDecision,
  ListedDecision,
  StoredDecision,
} from './decisions.js';
export { StoreDamagedError, StoreUnavailableError } from './errors.js';
export type { HealthStore, NewestHeld, StoreStats } from './health.js';
export type { LiveStore, StoredCapacityReport } from './live.js';
export type {
  LogEntryRow,
  LogHead,
  LogIntegrated,
  LogPlan,
  LogPlanInput,
  LogReads,
  LogStore,
  LogWrites,
  StoredCheckpoint,
} from './log.js';
export type { BlobKind, BlobStore, PolicyClaim, PolicyStore } from './policies.js';
export type { RecordStore, StoredRecord } from './records.js';
export { POLICY_LAG_US, type PruneResult, type RetentionStore } from './retention.js';

/**
 * The store. Every method is asynchronous, so that a store over the network (a database
 * server) implements it as well as the embedded one, which is synchronous inside and answers
 * in a resolved promise. Every write is durable when `commit`'s promise resolves (to the
 * configured level: see `docs/server.md`, *Durability*). Reads never see a half-written batch.
 *
 * The group commit (`commit.ts`) has one `commit` in flight at a time: a store need not order
 * concurrent commits.
 */
export interface SteeringStore
  extends DecisionStore,
    RecordStore,
    PolicyStore,
    LiveStore,
    LogStore,
    RetentionStore,
    HealthStore {
  /** Closes the store; resolves once everything it holds (threads, connections) is released. */
  close(): Promise<void>;
}
