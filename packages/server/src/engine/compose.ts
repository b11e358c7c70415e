/**
 * The engine's collaborators, composed from its options: each made once, given what it reads of
 * the others. The one place they are wired to each other; the engine (`engine.ts`) then runs the
 * steps over them.
 */
import { SessionMac } from '../guard/session-mac.js';
import { Health } from '../health.js';
import type { InstanceLink } from '../instances/link.js';
import { Metrics } from '../metrics.js';
import { SessionTable } from '../sessions.js';
import { CatchUp } from './catch-up.js';
import { monotonicClock } from './clock.js';
import { CommitQueue, commitObserver } from './commit.js';
import { DEFAULT_HORIZON, EvidenceIndex } from './evidence-index.js';
import type { SigningKey } from './in-force.js';
import { LeaseGate } from './lease-gate.js';
import { type LiveIntake, openPolicies } from './live-intake.js';
import { LiveSync } from './live-sync.js';
import { LoadHistory } from './load-history.js';
import type { PolicyInForce } from './policy-in-force.js';
import { StoreReads } from './reads.js';
import { RecordIntake } from './record-intake.js';
import { Retention } from './retention.js';
import { RoomState } from './room-state.js';
import type { EngineOptions } from './types.js';

/** What the collaborators read of the engine itself. */
export interface EngineHooks {
  /** The other instances of the deployment, when there are any (`instances/`). */
  link(): InstanceLink | undefined;
  /** Whether the engine is closing. */
  closing(): boolean;
}

/** The engine's collaborators, each with one job. */
export interface EngineParts {
  readonly metrics: Metrics;
  readonly now: () => bigint;
  readonly graceS: number;
  readonly sessionMac: SessionMac;
  readonly health: Health;
  readonly sessions: SessionTable;
  readonly loadHistory: LoadHistory;
  readonly index: EvidenceIndex;
  readonly policies: PolicyInForce;
  readonly live: LiveIntake | undefined;
  readonly retention: Retention;
  readonly queue: CommitQueue;
  readonly roomState: RoomState;
  readonly reads: StoreReads;
  readonly catchUps: CatchUp;
  readonly leases: LeaseGate;
  readonly liveSync: LiveSync;
  readonly records: RecordIntake;
}

/** Makes the engine's collaborators from its options (defaults filled) and wires them. */
export function composeEngine(o: EngineOptions, hooks: EngineHooks): EngineParts {
  const metrics = o.metrics ?? new Metrics();
  const roomState = new RoomState(o.room, o.roomBytes, o.keyLogBytes, o.store, o.backend);
  const now = o.clock ?? monotonicClock();
  const health = o.health ?? new Health();
  // Counted in µs of the room clock (docs/audit.md, the load replay).
  const sessions = new SessionTable(
    o.policy.pathways.map((p) => p.id),
    { maxSessions: o.maxSessions },
  );
  // `policies` is read only once the engine runs, after it is made below.
  let policies: PolicyInForce | undefined;
  const loadHistory = new LoadHistory({
    sessions,
    ids: () => policies!.current.ids,
    peers: () => hooks.link()?.peers?.peers,
  });
  const key: SigningKey = {
    roomId: o.room.roomId,
    publicKey: o.publicKey,
    secretKey: o.secretKey,
    backend: o.backend,
    ...(o.encoder === undefined ? {} : { encoder: o.encoder }),
  };
  const index = new EvidenceIndex(
    o.policy,
    o.horizon ?? DEFAULT_HORIZON,
    () => policies!.current,
    now,
  );
  const opened = openPolicies(
    {
      store: o.store,
      key,
      room: () => roomState.context,
      evidence: index.records,
      sessions,
      metrics,
      now,
      announce: (what) => hooks.link()?.announceLive?.(what),
      closing: hooks.closing,
      health,
      loadAt: (second, id) => loadHistory.at(Number(second), id, Number(now() / 1_000_000n)),
      ...(o.rotationLeadUs === undefined ? {} : { leadUs: o.rotationLeadUs }),
    },
    { policy: o.policy, bytes: o.policyBytes, digest: o.policyDigest },
    o.live,
  );
  policies = opened.policies;
  const { live } = opened;
  const retention = new Retention(o.store, health, metrics, o.newest);
  const reads = new StoreReads({ store: o.store, backend: o.backend, health, metrics });
  return {
    metrics,
    now,
    graceS: Math.ceil(o.graceMs / 1000),
    sessionMac: o.sessionMac ?? new SessionMac(),
    health,
    sessions,
    loadHistory,
    index,
    policies,
    live,
    retention,
    queue: new CommitQueue(o.store, {
      maxPending: o.maxQueue,
      ...(o.commitDelayMs === undefined ? {} : { delayMs: o.commitDelayMs }),
      onCommit: commitObserver(metrics, health),
    }),
    roomState,
    reads,
    catchUps: new CatchUp(hooks.link, metrics, health),
    leases: new LeaseGate(() => hooks.link()?.peers),
    liveSync: new LiveSync({ policies, live, health, metrics }),
    records: new RecordIntake({
      metrics,
      reads,
      index,
      retention,
      observer: o.observer,
      link: hooks.link,
      policy: () => policies!.current.policy,
    }),
  };
}
