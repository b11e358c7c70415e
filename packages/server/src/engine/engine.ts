/**
 * The steering engine: the state and the steps of a steering server, behind no door. It decides
 * (§4, §6, §7, §8.1: the report, the session, the decision over the evidence and the loads,
 * signed and durable, then the manifest) and ingests (companion C5: a hop's record verified,
 * durable, then evidence), and serves what it keeps by digest. Its collaborators each have one
 * job: the policy in force (`policy-in-force.ts`), live capacity (`live-intake.ts`), the evidence
 * index (`evidence-index.ts`), the group commit (`commit.ts`), the reads by digest
 * (`reads.ts`), the catch-up of the other instances' records (`catch-up.ts`), the capacity
 * leases' part of deciding (`lease-gate.ts`), the records' part of ingest (`record-intake.ts`),
 * the policy kept in step with the other instances (`live-sync.ts`), retention (`retention.ts`)
 * and the gauges (`gauges.ts`); `compose.ts` wires them.
 *
 * A door (the HTTP routes; a test; a console) gives it a request and shows the result it returns:
 * results are the engine's own words (`types.ts`), never a status or a header.
 */
import type { Evidence } from '@wai-steering/evidence';
import { windowAt } from '@wai-steering/evidence';
import { writeManifest } from '@wai-steering/manifest';
import { type Protocol, protocolOf, type Report, readReport, sessionOf } from '@wai-steering/rule';
import { openHopRecord, type RoomContext } from '@wai-steering/verifier';
import {
  bytesEqual,
  type DecisionFields,
  type KeyLog,
  type Policy,
  REASON_NAME,
} from '@wai-steering/wire';
import type { SessionMac } from '../guard/session-mac.js';
import type { Health } from '../health.js';
import type { InstanceLink } from '../instances/link.js';
import type { Metrics } from '../metrics.js';
import type { SessionTable } from '../sessions.js';
import type { DecisionCursor, PruneResult, StoredRecord } from '../store/store.js';
import { composeEngine, type EngineParts } from './compose.js';
import type { EvidenceIndex } from './evidence-index.js';
import { registerGauges } from './gauges.js';
import type { InForce } from './in-force.js';
import type { LiveIntake } from './live-intake.js';
import type { PolicyInForce } from './policy-in-force.js';
import { found, storeUnavailable } from './reads.js';
import { type Rebuilt, rebuildSessions } from './rebuild.js';
import type {
  CapacityResult,
  DecideRequest,
  DecideResult,
  EngineOptions,
  IngestResult,
  KeyLogResult,
  ListingResult,
  Overloaded,
  PolicyRotated,
  ReadResult,
  RecordListingResult,
  Steered,
  StoredRead,
} from './types.js';

/** A report read with no headers (a steering request without `CMCD-Request`). */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The steering engine. Open one with {@link SteeringEngine.open}. */
export class SteeringEngine {
  /** What the engine counts; the doors add their own (requests, latency). */
  readonly metrics: Metrics;
  /** The sessions and their loads (§6). */
  readonly sessions: SessionTable;
  /** The room clock, µs since the epoch. */
  readonly now: () => bigint;
  /** Mints and checks sessions (`guard/session-mac.ts`). */
  readonly sessionMac: SessionMac;
  /** Degraded state (`health.ts`). */
  readonly health: Health;
  /** The records a current or later window may name, and their horizon. */
  readonly index: EvidenceIndex;
  /** Session grace in whole seconds (§6 loads; the listing's and the archive's `grace_s`). */
  readonly graceS: number;
  /** The policy in force, and how it changes (`policy-in-force.ts`). */
  readonly policies: PolicyInForce;
  /** Live capacity from the sites, when the configuration enables it (`live-intake.ts`). */
  readonly live: LiveIntake | undefined;
  private closed = false;
  /** Until {@link ready}: decisions are declined (the session table is being rebuilt). */
  private starting_: boolean;
  /** The other instances of the deployment, when there are any (`instances/`). */
  private link: InstanceLink | undefined;

  /** The collaborators, each with one job (`compose.ts`); the public ones are fields too. */
  private readonly parts: EngineParts;

  private constructor(private readonly o: EngineOptions) {
    this.starting_ = o.starting === true;
    this.parts = composeEngine(o, { link: () => this.link, closing: () => this.closed });
    ({
      metrics: this.metrics,
      now: this.now,
      graceS: this.graceS,
      sessionMac: this.sessionMac,
      health: this.health,
      sessions: this.sessions,
      index: this.index,
      policies: this.policies,
      live: this.live,
    } = this.parts);
  }

  /**
   * Opens an engine over a store: keeps the policy, the room descriptor and the key log head in
   * it (a verifier fetches them by digest, and they outlive a configuration change), joins the
   * policy the store has in force, reads the capacity reports it keeps, loads the records a
   * current or later window may name, and checks the decision encoder against wire's
   * `signDecision`.
   */
  static async open(options: EngineOptions): Promise<SteeringEngine> {
    const engine = new SteeringEngine(options);
    const { store } = options;
    await store.putBlob('policy', options.policyDigest, options.policyBytes);
    await engine.parts.roomState.keep();
    await engine.policies.join();
    await engine.live?.readReports();
    await engine.index.load(store);
    registerGauges(engine.metrics, engine);
    engine.policies.current.selfCheck(engine.now(), Array.from(engine.loadsNow()));
    return engine;
  }

  /** The policy in force: the one decisions are made under now. */
  get policy(): Policy {
    return this.policies.current.policy;
  }

  /** The digest (§3.4) of the policy in force. */
  get policyDigest(): Uint8Array {
    return this.policies.current.digest;
  }

  /** The bytes of the policy in force. */
  get policyBytes(): Uint8Array {
    return this.policies.current.bytes;
  }

  /** The room the records are verified against, with its key log head. */
  get room(): RoomContext {
    return this.parts.roomState.context;
  }

  /** The current key log head, `undefined` when the room names no origin. */
  get keyLog(): KeyLog | undefined {
    return this.parts.roomState.context.keyLog;
  }

  /** Whether the engine is closing (it then declines every decide and ingest request). */
  get closing(): boolean {
    return this.closed;
  }

  /** Whether the engine is starting: it declines decisions until {@link ready}. */
  get starting(): boolean {
    return this.starting_;
  }

  /**
   * Rebuilds the session table from the decisions the store keeps (`rebuild.ts`): the sessions
   * that still count whose latest placement is this instance's (`mine`, by the instance each
   * decision was committed under). Call it once, on a fresh engine, before {@link ready}.
   */
  rebuildSessions(mine: (instance: number | null) => boolean): Promise<Rebuilt> {
    if (this.sessions.size > 0) throw new TypeError('rebuildSessions: the table holds sessions');
    return rebuildSessions({
      store: this.o.store,
      sessions: this.sessions,
      graceS: this.graceS,
      now: this.now,
      mine,
    });
  }

  /** The engine decides from now on. */
  ready(): void {
    this.starting_ = false;
  }

  /** §5: the evidence at instant `t`, as a decision at `t` reads it (the per-window cache). */
  evidenceAt(t: bigint): Evidence {
    return this.policies.current.cache.at(t);
  }

  /** This instance's own loads now (§6): every session whose end has come is out, swept or not. */
  loadsNow(): Uint32Array {
    const now = Number(this.now());
    this.parts.loadHistory.advance(Math.floor(now / 1_000_000));
    return this.sessions.loadsAt(now);
  }

  /** Decisions and records awaiting their group commit. */
  get pendingCommits(): number {
    return this.parts.queue.pending;
  }

  /**
   * Replaces the room context (a new key log head, verified by the caller with `openRoom`):
   * the head is kept in the store, then served and used to verify records.
   */
  replaceRoom(room: RoomContext, keyLogBytes: Uint8Array | null): Promise<void> {
    return this.parts.roomState.replace(room, keyLogBytes);
  }

  /** Puts a policy in force (`policy-in-force.ts`): the operator's, or one signed from live capacity. */
  rotatePolicy(bytes: Uint8Array, by: 'operator' | 'live'): Promise<PolicyRotated> {
    return this.policies.rotate(bytes, by);
  }

  /** Adopts the policy another instance put in force, with the reports it was signed from. */
  adoptPolicy(): Promise<PolicyRotated | undefined> {
    return this.parts.liveSync.adopt();
  }

  /** A site's capacity report (`live-intake.ts`). */
  async offerCapacity(jws: string): Promise<CapacityResult> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.live === undefined) return { kind: 'capacity_off' };
    return this.live.offer(jws);
  }

  /**
   * Catches up with the other instances (the policy in force, the site reports they took), then
   * signs the policy the live values call for, if any (`live-sync.ts`): the server calls it on a
   * timer and when the store announces a change.
   */
  syncLive(): Promise<PolicyRotated | undefined> {
    return this.closed ? Promise.resolve(undefined) : this.parts.liveSync.sync();
  }

  /** Counts and returns an {@link Overloaded}. */
  private overloaded(why: string): Overloaded {
    this.metrics.overload.inc();
    return { kind: 'overloaded', why };
  }

  /** An {@link Overloaded} when the engine declines all work now (it is closing). */
  admit(): Overloaded | undefined {
    return this.closed ? this.overloaded('the server is closing') : undefined;
  }

  /**
   * The session a steering request carries (§8.1 `wai_session`), when this server minted it
   * (`guard/session-mac.ts`); `undefined` when it carries none or a forged one (counted), which
   * the decision treats as absent.
   */
  readSession(target: string): Uint8Array | undefined {
    const given = sessionOf(target);
    if (given === undefined || this.sessionMac.check(given)) return given;
    this.metrics.forgedSessions.inc();
    return undefined;
  }

  /**
   * A steering request (§4, §6, §7, §8.1): the report, the session, the decision over the
   * current evidence and loads, signed, archived (durable), then the manifest. Everything but
   * the wait for the group commit (and, on a window move, for the other instances' records) is
   * done in the call: one promise per request, the commit's.
   */
  decide(request: DecideRequest): Promise<DecideResult> {
    if (this.closed) return Promise.resolve(this.overloaded('the server is closing'));
    if (this.starting_) {
      return Promise.resolve({
        kind: 'overloaded',
        why: 'the server is starting: its session table is being rebuilt',
      });
    }
    // A decision served now could not be fetched after a restart (§8.4): none is served.
    const unavailable = this.parts.reads.fileGone();
    if (unavailable !== undefined) return Promise.resolve(unavailable);
    if (this.parts.queue.full) {
      return Promise.resolve(this.overloaded('too many decisions await their commit'));
    }
    const given =
      request.session === undefined ? this.readSession(request.target) : request.session;
    return this.decideFor(request, given ?? this.sessionMac.mint(), 0, false);
  }

  /**
   * {@link decide} for a session, at the clock of now: under the policy in force at its `t`
   * (`policy-in-force.ts`), once the order of policies was read recently enough that no rotation
   * due by `t` is unknown here (read first otherwise, once: `read`).
   */
  private decideFor(
    request: DecideRequest,
    session: Uint8Array,
    takes: number,
    read: boolean,
  ): Promise<DecideResult> {
    const t = request.t ?? this.now();
    if (!this.policies.fresh(t)) {
      const unread = storeUnavailable('query', 'the order of policies in force cannot be read');
      if (read) return Promise.resolve(unread);
      return this.policies.refresh().then(
        () => this.decideFor(request, session, takes, true),
        () => unread,
      );
    }
    // One policy for the whole decision, whatever rotates while it awaits its commit.
    const under = this.policies.at(t);
    const { target, cmcd } = request;
    const protocol = protocolOf(target);
    const headers = cmcd === undefined ? NO_HEADERS : { 'cmcd-request': cmcd };
    const report = readReport({ protocol, target, headers }, under.ids);
    // A new window: the records the other instances stored are read first (`catch-up.ts`).
    const caughtUp = this.parts.catchUps.before(under.policy, t);
    if (caughtUp !== undefined) {
      return this.decideAfter(caughtUp, under, request, session, protocol, report, takes);
    }
    return this.decideAt(under, request, t, session, protocol, report, takes);
  }

  /** {@link decide} once the catch-up is done (`catch-up.ts`), at the clock of then. */
  private async decideAfter(
    first: Promise<void>,
    under: InForce,
    request: DecideRequest,
    session: Uint8Array,
    protocol: Protocol,
    report: Report,
    takes: number,
  ): Promise<DecideResult> {
    const t = await this.parts.catchUps.settle(first, under.policy, () => request.t ?? this.now());
    return this.decideAt(under, request, t, session, protocol, report, takes);
  }

  /**
   * §6, §7: the decision at `t` over the loads as they stand, signed, queued for the commit. With
   * leases of the capacity (`lease-gate.ts`), an instance that ran out of slots of a pathway that
   * may have free ones elsewhere asks for more first (up to 3 times), then decides again at the
   * clock of then.
   */
  private decideAt(
    under: InForce,
    request: DecideRequest,
    t: bigint,
    session: Uint8Array,
    protocol: Protocol,
    report: Report,
    takes: number,
  ): Promise<DecideResult> {
    // A rotation's instant came while it waited (a catch-up, a lease): decided again under it.
    if (this.policies.at(t) !== under) return this.decideFor(request, session, takes, false);
    const now = Number(t);
    // The loads at the start of each second, before this one changes the table (live capacity).
    this.parts.loadHistory.advance(Math.floor(now / 1_000_000));
    // §6: the loads as they stand, this session's own count included (§6.1: c's load already
    // counts the client); a session past its TTL and grace no longer counts. The sessions are
    // counted under this decision's policy, carried by pathway ID from the last decision's.
    this.sessions.follow(under.ids);
    const previous = this.sessions.current(session, now);
    if (previous < 0 && this.sessions.size >= this.o.maxSessions) {
      return Promise.resolve(this.overloaded('the session table is full'));
    }
    // §6: this instance's own loads, every session whose end has come out, swept or not
    // (docs/audit.md, the load replay), plus its live peers' latest (`instances/loads.ts`), a
    // pathway in which it holds no free slot at its limit (`instances/leases.ts`).
    const own = this.sessions.loadsAt(now, under.ids);
    const loads = this.parts.leases.loads(own, under.capacities, takes);
    if (!Array.isArray(loads)) {
      return loads.then(() => {
        const at = request.t ?? this.now();
        const caughtUp = this.parts.catchUps.before(under.policy, at);
        return caughtUp === undefined
          ? this.decideAt(under, request, at, session, protocol, report, takes + 1)
          : this.decideAfter(caughtUp, under, request, session, protocol, report, takes + 1);
      });
    }
    const { fields, evidence } = under.assemble(t, session, protocol, report, loads);
    const signed = under.signer.sign(fields, evidence);
    // After deciding, the session counts in its new first pathway until TTL + grace.
    const first = fields.priority[0]!;
    this.sessions.place(session, first, now + (fields.ttl + this.graceS) * 1_000_000);
    if (first !== previous) this.parts.leases.place(first, own.length);
    return this.parts.queue.addDecision(signed).then(
      () => this.steered(under, t, fields, signed.digest),
      () => storeUnavailable('commit', 'the decision could not be archived'),
    );
  }

  /** The sessions newly placed in each pathway so far, in the policy's order (for the leases). */
  get placements(): Uint32Array {
    return this.parts.leases.placements;
  }

  /** A decision durable: counted, noted, and its manifest (§8.1). */
  private steered(under: InForce, t: bigint, fields: DecisionFields, digest: Uint8Array): Steered {
    this.parts.retention.decided(t);
    const reason = fields.reason;
    this.metrics.decisions.incKey(reason, () => ({
      reason: REASON_NAME[reason] ?? String(reason),
    }));
    this.o.observer?.decided(fields, digest);
    const body = writeManifest(
      under.policy,
      { session: fields.session, ttl: fields.ttl, priority: fields.priority },
      digest,
    );
    return { kind: 'manifest', body, digest, fields };
  }

  /**
   * A hop's `WMH1` (companion C5): verified against the room, within the horizon, archived, then
   * evidence (`record-intake.ts`).
   */
  async ingest(bytes: Uint8Array): Promise<IngestResult> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.parts.queue.full) return this.overloaded('too many writes await their commit');
    const opened = openHopRecord(this.parts.roomState.context, bytes, { backend: this.o.backend });
    if (!opened.ok) return this.parts.records.refused(opened.refusal, bytes);
    const { record, digest } = opened.value;
    const now = this.now();
    const outside = this.index.horizon.check(record, now);
    if (outside !== undefined) {
      const refused = await this.parts.records.outside(outside, digest);
      if (refused !== undefined) return refused;
    }
    const { hop, start, end } = record;
    const stored: StoredRecord = { digest, bytes, hop, start, end };
    let inserted: boolean;
    try {
      inserted = await this.parts.queue.addRecord(stored);
    } catch {
      return storeUnavailable('commit', 'the record could not be archived');
    }
    return this.parts.records.taken(stored, record, inserted, now);
  }

  /** Shares the engine with the other instances of its deployment (`instances/link.ts`). */
  linkInstances(link: InstanceLink | undefined): void {
    this.link = link;
  }

  /** A record another instance stored (it verified it against the same room): whether it was new. */
  learnRecord(r: StoredRecord): boolean {
    return this.index.learn(r.bytes, r.digest);
  }

  /** §8.4: the decision of a digest, its exact bytes (`reads.ts`). */
  decision(digest: Uint8Array): Promise<StoredRead> {
    return this.parts.reads.decision(digest);
  }

  /** The decisions with `from` ≤ `t` < `to`, by time, a page at a time (`GET /decisions`). */
  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<ListingResult> {
    return this.parts.reads.listDecisions(from, to, after, limit);
  }

  /** The records whose span meets `[from, to)`, by `start`, a page at a time (`GET /records`). */
  listRecords(
    from: bigint,
    to: bigint,
    after: bigint | null,
    limit: number,
  ): Promise<RecordListingResult> {
    return this.parts.reads.listRecords(from, to, after, limit);
  }

  /** The per-hop record of a digest (C1), checked against it. */
  record(digest: Uint8Array): Promise<StoredRead> {
    return this.parts.reads.record(digest);
  }

  /** The policy of a digest (§3.4): the one in force, or one kept (an earlier one), checked. */
  policyOf(digest: Uint8Array): Promise<StoredRead> {
    const current = this.policies.current;
    if (bytesEqual(digest, current.digest)) return Promise.resolve(found(current.bytes));
    return this.parts.reads.policy(digest);
  }

  /** The descriptor of the room of an id, when it is the room served. */
  roomDescriptorOf(roomId: Uint8Array): ReadResult {
    return this.parts.roomState.descriptorOf(roomId);
  }

  /** The current key log head of the room of an id, when it is the room served. */
  keyLogHeadOf(roomId: Uint8Array): KeyLogResult {
    return this.parts.roomState.keyLogHeadOf(roomId);
  }

  /** Drops sessions past their TTL and grace, and evidence no later window can name. */
  sweep(budget: number): void {
    const now = this.now();
    // A rotation's instant passed with no decision since: in force all the same.
    this.policies.at(now);
    this.parts.loadHistory.advance(Number(now / 1_000_000n));
    this.sessions.sweep(budget, Number(now));
    this.index.prune(now);
  }

  /**
   * While the store is told failing, tries it once: an empty commit while commits fail, a read
   * while its queries fail. A store that came back clears its cause without waiting for a
   * request (a balancer that took the instance out of its pool for its 503 sends none).
   */
  async probeStore(): Promise<void> {
    if (this.closed) return;
    if (this.health.has('commit')) await this.parts.queue.probe();
    if (this.health.has('store_queries')) await this.parts.reads.policy(this.policyDigest, false);
  }

  /** Prunes the store by age (`retention.ts`); records a current window may name stay. */
  prune(recordsMs: number, decisionsMs: number): Promise<PruneResult> {
    const now = this.now();
    return this.parts.retention.prune(now, windowAt(this.policy, now).a, recordsMs, decisionsMs);
  }

  /** Declines further work and resolves once what is queued is durable. The store stays open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.parts.queue.close();
  }
}
