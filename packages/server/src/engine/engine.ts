/**
 * The steering engine: the state and the steps of a steering server, behind no door. It decides
 * (§4, §6, §7, §8.1: the report, the session, the decision over the evidence and the loads,
 * signed and durable, then the manifest) and ingests (companion C5: a hop's record verified,
 * durable, then evidence), and serves what it keeps by digest. Its collaborators each have one
 * job: the policy in force (`policy-in-force.ts`), live capacity (`live-intake.ts`), the evidence
 * index (`evidence-index.ts`), the group commit (`commit.ts`), retention (`retention.ts`) and the
 * gauges (`gauges.ts`).
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
  readHopRecord,
  sha256,
  toHex,
} from '@wai-steering/wire';
import { SessionMac } from '../guard/session-mac.js';
import { describeError, Health } from '../health.js';
import { isShort, statedLoads } from '../instances/leases.js';
import type { InstanceLink } from '../instances/link.js';
import { Metrics } from '../metrics.js';
import { SessionTable } from '../sessions.js';
import {
  type DecisionCursor,
  type PruneResult,
  StoreDamagedError,
  type StoredRecord,
} from '../store/store.js';
import { monotonicClock } from './clock.js';
import { CommitQueue, commitObserver } from './commit.js';
import { DEFAULT_HORIZON, EvidenceIndex } from './evidence-index.js';
import { registerGauges } from './gauges.js';
import type { InForce, SigningKey } from './in-force.js';
import { type LiveIntake, openPolicies } from './live-intake.js';
import { LoadHistory } from './load-history.js';
import type { PolicyInForce } from './policy-in-force.js';
import { Retention } from './retention.js';
import { RoomState } from './room-state.js';
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
  Steered,
  StoreDamaged,
  StoredRead,
  StoreUnavailable,
} from './types.js';
import { unusedReason } from './unused.js';

/** A report read with no headers (a steering request without `CMCD-Request`). */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

function found(bytes: Uint8Array | undefined): ReadResult {
  return bytes === undefined ? { kind: 'absent' } : { kind: 'found', bytes };
}

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
  private readonly queue: CommitQueue;
  /** The policy in force, and how it changes (`policy-in-force.ts`). */
  readonly policies: PolicyInForce;
  /** Live capacity from the sites, when the configuration enables it (`live-intake.ts`). */
  readonly live: LiveIntake | undefined;
  private readonly retention: Retention;
  private readonly roomState: RoomState;
  /** The loads stated at each second of the last minutes (live capacity adds GAS to them). */
  private readonly loadHistory: LoadHistory;
  private closed = false;
  /** The other instances of the deployment, when there are any (`instances/`). */
  private link: InstanceLink | undefined;
  /** The sessions newly placed in each pathway so far (a running count, for the leases). */
  private placed = new Uint32Array(0);
  /** Decisions waiting for a take of slots (`PeerLoads.take`). */
  private waitingSlots = 0;
  /** The loads a decision states, written in place (`statedLoads`). */
  private readonly stated: number[] = [];
  /** The window whose start the link was last asked about, and the instants it holds. */
  private linkWindow:
    | { readonly policy: Policy; readonly from: bigint; readonly until: bigint; readonly a: bigint }
    | undefined;

  private constructor(private readonly o: EngineOptions) {
    this.metrics = o.metrics ?? new Metrics();
    this.roomState = new RoomState(o.room, o.roomBytes, o.keyLogBytes, o.store, o.backend);
    this.now = o.clock ?? monotonicClock();
    this.graceS = Math.ceil(o.graceMs / 1000);
    this.sessionMac = o.sessionMac ?? new SessionMac();
    this.health = o.health ?? new Health();
    // Counted in µs of the room clock (docs/audit.md, the load replay).
    this.sessions = new SessionTable(
      o.policy.pathways.map((p) => p.id),
      { maxSessions: o.maxSessions },
    );
    this.loadHistory = new LoadHistory({
      sessions: this.sessions,
      ids: () => this.policies.current.ids,
      peers: () => this.link?.peers?.peers,
    });
    const key: SigningKey = {
      roomId: o.room.roomId,
      publicKey: o.publicKey,
      secretKey: o.secretKey,
      backend: o.backend,
      ...(o.encoder === undefined ? {} : { encoder: o.encoder }),
    };
    this.index = new EvidenceIndex(
      o.policy,
      o.horizon ?? DEFAULT_HORIZON,
      () => this.policies.current,
      this.now,
    );
    ({ policies: this.policies, live: this.live } = openPolicies(
      {
        store: o.store,
        key,
        room: () => this.roomState.context,
        evidence: this.index.records,
        sessions: this.sessions,
        metrics: this.metrics,
        now: this.now,
        announce: (what) => this.link?.announceLive?.(what),
        closing: () => this.closed,
        health: this.health,
        loadAt: (second, id) =>
          this.loadHistory.at(Number(second), id, Number(this.now() / 1_000_000n)),
      },
      { policy: o.policy, bytes: o.policyBytes, digest: o.policyDigest },
      o.live,
    ));
    this.retention = new Retention(o.store, this.health, this.metrics, o.newest);
    this.queue = new CommitQueue(o.store, {
      maxPending: o.maxQueue,
      onCommit: commitObserver(this.metrics, this.health),
    });
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
    await engine.roomState.keep();
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
    return this.roomState.context;
  }

  /** The current key log head, `undefined` when the room names no origin. */
  get keyLog(): KeyLog | undefined {
    return this.roomState.context.keyLog;
  }

  /** Whether the engine is closing (it then declines every decide and ingest request). */
  get closing(): boolean {
    return this.closed;
  }

  /** §5: the evidence at instant `t`, as a decision at `t` reads it (the per-window cache). */
  evidenceAt(t: bigint): Evidence {
    return this.policies.current.cache.at(t);
  }

  /** This instance's own loads now (§6): every session whose end has come is out, swept or not. */
  loadsNow(): Uint32Array {
    const now = Number(this.now());
    this.loadHistory.advance(Math.floor(now / 1_000_000));
    return this.sessions.loadsAt(now);
  }

  /** Decisions and records awaiting their group commit. */
  get pendingCommits(): number {
    return this.queue.pending;
  }

  /**
   * Replaces the room context (a new key log head, verified by the caller with `openRoom`):
   * the head is kept in the store, then served and used to verify records.
   */
  replaceRoom(room: RoomContext, keyLogBytes: Uint8Array | null): Promise<void> {
    return this.roomState.replace(room, keyLogBytes);
  }

  /** Puts a policy in force (`policy-in-force.ts`): the operator's, or one signed from live capacity. */
  rotatePolicy(bytes: Uint8Array, by: 'operator' | 'live'): Promise<PolicyRotated> {
    return this.policies.rotate(bytes, by);
  }

  /** Adopts the policy another instance put in force, with the reports it was signed from. */
  async adoptPolicy(): Promise<PolicyRotated | undefined> {
    try {
      const adopted = await this.policies.adopt();
      if (adopted !== undefined) await this.live?.readReports();
      this.health.clear('store_queries');
      return adopted;
    } catch (e) {
      this.liveFailed(e);
      return undefined;
    }
  }

  /** A site's capacity report (`live-intake.ts`). */
  async offerCapacity(jws: string): Promise<CapacityResult> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.live === undefined) return { kind: 'capacity_off' };
    return this.live.offer(jws);
  }

  /**
   * Catches up with the other instances (the policy in force, the site reports they took), then
   * signs the policy the live values call for, if any: the server calls it on a timer and when
   * the store announces a change.
   */
  async syncLive(): Promise<PolicyRotated | undefined> {
    if (this.closed) return undefined;
    try {
      const adopted = await this.policies.adopt();
      await this.live?.readReports();
      const rotated = (await this.live?.tick()) ?? adopted;
      this.health.clear('store_queries');
      return rotated;
    } catch (e) {
      this.liveFailed(e);
      return undefined;
    }
  }

  /** Keeping the live policy failed (the store did not answer): told once per state change. */
  private liveFailed(e: unknown): void {
    this.metrics.storeErrors.inc({ op: 'query' });
    this.health.fail('store_queries', `the policy in force cannot be read: ${describeError(e)}`);
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
    // A decision served now could not be fetched after a restart (§8.4): none is served.
    const unavailable = this.storeFileGone();
    if (unavailable !== undefined) return Promise.resolve(unavailable);
    if (this.queue.full) {
      return Promise.resolve(this.overloaded('too many decisions await their commit'));
    }
    // One policy for the whole decision, whatever rotates while it awaits its commit.
    const under = this.policies.current;
    const { target, cmcd } = request;
    const protocol = protocolOf(target);
    const given = request.session === undefined ? this.readSession(target) : request.session;
    const session = given ?? this.sessionMac.mint();
    const headers = cmcd === undefined ? NO_HEADERS : { 'cmcd-request': cmcd };
    const report = readReport({ protocol, target, headers }, under.ids);
    const t = request.t ?? this.now();
    // A new window: the records the other instances stored are read first (`instances/feed.ts`).
    const caughtUp = this.catchUp(under, t);
    if (caughtUp !== undefined) {
      return this.decideAfter(caughtUp, under, request, session, protocol, report, 0);
    }
    return this.decideAt(under, request, t, session, protocol, report, 0);
  }

  /**
   * The catch-up of the other instances' records to wait for before deciding at `t`, when `t`
   * is in a window other than the last one asked about (`instances/feed.ts`); `undefined` when
   * there is none (no link, or the window of the previous decisions).
   */
  private catchUp(under: InForce, t: bigint): Promise<void> | undefined {
    const before = this.link?.beforeWindow;
    if (before === undefined) return undefined;
    // The window's start, computed again only when t leaves the instants of the last one.
    const w = this.linkWindow;
    if (w === undefined || w.policy !== under.policy || t < w.from || t >= w.until) {
      // §5.1: the window is the same for every t of one period after L + b (t < L + P: b = 0).
      const policy = under.policy;
      const { a, b } = windowAt(policy, t);
      const from = b === 0n ? 0n : policy.lag_us + b;
      const until = b === 0n ? policy.lag_us + policy.period_us : from + policy.period_us;
      this.linkWindow = { policy, from, until, a };
    }
    return before.call(this.link, this.linkWindow!.a);
  }

  /** {@link decide} once the catch-up is done; again should the clock have reached a further window. */
  private async decideAfter(
    first: Promise<void>,
    under: InForce,
    request: DecideRequest,
    session: Uint8Array,
    protocol: Protocol,
    report: Report,
    takes: number,
  ): Promise<DecideResult> {
    let caughtUp: Promise<void> | undefined = first;
    let t = request.t ?? this.now();
    for (let i = 0; caughtUp !== undefined; i++) {
      // A catch-up that fails is told once (`health.ts`); the decision goes on over what is held.
      await caughtUp.then(
        () => this.health.clear('store_queries'),
        (e: unknown) => {
          this.metrics.storeErrors.inc({ op: 'query' });
          this.health.fail('store_queries', `the catch-up of records fails: ${describeError(e)}`);
        },
      );
      t = request.t ?? this.now();
      caughtUp = i < 2 ? this.catchUp(under, t) : undefined;
    }
    return this.decideAt(under, request, t, session, protocol, report, takes);
  }

  /**
   * §6, §7: the decision at `t` over the loads as they stand, signed, queued for the commit. With
   * leases of the capacity (`instances/leases.ts`), an instance that ran out of slots of a
   * pathway that may have free ones elsewhere asks for more first (up to 3 times), then decides
   * again at the clock of then.
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
    const now = Number(t);
    // The loads at the start of each second, before this one changes the table (live capacity).
    this.loadHistory.advance(Math.floor(now / 1_000_000));
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
    const peers = this.link?.peers;
    const lease = peers?.lease();
    if (lease !== undefined && takes < 3 && isShort(own, peers!.peers, under.capacities, lease)) {
      // The decisions waiting share a take; should they use its slots up, another (the
      // exchange answers at once when a take found none to grant).
      this.waitingSlots++;
      return peers!.take(this.waitingSlots).then(() => {
        this.waitingSlots--;
        const at = request.t ?? this.now();
        const caughtUp = this.catchUp(under, at);
        return caughtUp === undefined
          ? this.decideAt(under, request, at, session, protocol, report, takes + 1)
          : this.decideAfter(caughtUp, under, request, session, protocol, report, takes + 1);
      });
    }
    const loads = statedLoads(own, peers?.peers, under.capacities, lease, this.stated);
    const { fields, evidence } = under.assemble(t, session, protocol, report, loads);
    const signed = under.signer.sign(fields, evidence);
    // After deciding, the session counts in its new first pathway until TTL + grace.
    const first = fields.priority[0]!;
    this.sessions.place(session, first, now + (fields.ttl + this.graceS) * 1_000_000);
    if (first !== previous) {
      if (this.placed.length !== own.length) this.placed = new Uint32Array(own.length);
      this.placed[first]!++;
    }
    return this.queue.addDecision(signed).then(
      () => this.steered(under, t, fields, signed.digest),
      () => this.storeUnavailable('commit', 'the decision could not be archived'),
    );
  }

  /** The sessions newly placed in each pathway so far, in the policy's order (for the leases). */
  get placements(): Uint32Array {
    return this.placed;
  }

  /** A decision durable: counted, noted, and its manifest (§8.1). */
  private steered(under: InForce, t: bigint, fields: DecisionFields, digest: Uint8Array): Steered {
    this.retention.decided(t);
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

  /** A hop's `WMH1` (companion C5): verified against the room, archived, then evidence. */
  async ingest(bytes: Uint8Array): Promise<IngestResult> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.queue.full) return this.overloaded('too many writes await their commit');
    const opened = openHopRecord(this.roomState.context, bytes, { backend: this.o.backend });
    if (!opened.ok) {
      const { reason, where } = opened.refusal;
      this.metrics.refused.inc({ reason });
      if (this.o.observer !== undefined) {
        const read = readHopRecord(bytes);
        this.o.observer.ingested(read.ok ? read.value.hop : null, { refused: reason });
      }
      return { kind: 'refused', reason, where: { ...where }, message: opened.refusal.message };
    }
    const { record, digest } = opened.value;
    const now = this.now();
    const outside = this.index.horizon.check(record, now);
    if (outside !== undefined) {
      // A record held already is answered as held, whatever the horizon says now.
      const held = await this.read('record', digest, () => this.o.store.getRecord(digest), true);
      if (held.kind === 'store_unavailable') return held;
      if (held.kind !== 'found') {
        this.metrics.horizonRefused.inc({ error: outside.error });
        return { kind: 'outside', refusal: outside };
      }
    }
    const stored: StoredRecord = {
      digest,
      bytes,
      hop: record.hop,
      start: record.start,
      end: record.end,
    };
    let inserted: boolean;
    try {
      inserted = await this.queue.addRecord(stored);
    } catch {
      return this.storeUnavailable('commit', 'the record could not be archived');
    }
    // Durable now: the next window move may name it (`evidence-index.ts`).
    this.index.take(record, digest);
    if (inserted) {
      this.retention.recorded(record.end, now);
      this.link?.stored?.(stored);
    }
    this.metrics.ingested.inc({ result: inserted ? 'new' : 'duplicate' });
    this.o.observer?.ingested(record.hop, inserted ? 'new' : 'duplicate', record);
    // Taken, but named by no decision the server will make (`unused.ts`): said, so that a hop's
    // operator sees it.
    const unused = unusedReason(this.policy, record, now);
    return {
      kind: 'stored',
      digest,
      inserted,
      record,
      ...(unused === undefined ? {} : { unused }),
    };
  }

  /** Shares the engine with the other instances of its deployment (`instances/link.ts`). */
  linkInstances(link: InstanceLink | undefined): void {
    this.link = link;
  }

  /** A record another instance stored (it verified it against the same room): whether it was new. */
  learnRecord(r: StoredRecord): boolean {
    return this.index.learn(r.bytes, r.digest);
  }

  /**
   * §8.4: the decision of a digest, its exact bytes; `store_damaged` when the store keeps a row
   * under it that does not rebuild it, `store_unavailable` when the store does not answer.
   */
  decision(digest: Uint8Array): Promise<StoredRead> {
    return this.read('decision', digest, () => this.o.store.getDecision(digest), false);
  }

  /**
   * The decisions with `from` ≤ `t` < `to`, by time, a page at a time (`GET /decisions`);
   * `store_damaged` at a row that does not rebuild its digest (never listed under another).
   */
  async listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<ListingResult> {
    try {
      const page = await this.o.store.listDecisions(from, to, after, limit);
      this.health.clear('store_queries');
      return { kind: 'page', ...page };
    } catch (e) {
      return this.readFailed(e);
    }
  }

  /** The per-hop record of a digest (C1), checked against it. */
  record(digest: Uint8Array): Promise<StoredRead> {
    return this.read('record', digest, () => this.o.store.getRecord(digest), true);
  }

  /** The policy of a digest (§3.4): the one in force, or one kept (an earlier one), checked. */
  async policyOf(digest: Uint8Array): Promise<StoredRead> {
    const current = this.policies.current;
    if (bytesEqual(digest, current.digest)) return found(current.bytes);
    return this.read('policy', digest, () => this.o.store.getBlob('policy', digest), true);
  }

  /**
   * A read by digest from the store. `check`: the bytes are a record of the family, whose digest
   * is the SHA-256 of all but its 64-byte signature (C1), checked here (a decision is checked by
   * the store, which rebuilds it).
   */
  private async read(
    what: StoreDamaged['what'],
    digest: Uint8Array,
    get: () => Promise<Uint8Array | undefined>,
    check: boolean,
  ): Promise<StoredRead> {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await get();
    } catch (e) {
      return this.readFailed(e);
    }
    this.health.clear('store_queries');
    if (
      check &&
      bytes !== undefined &&
      (bytes.length < 64 ||
        !bytesEqual(sha256(bytes.subarray(0, bytes.length - 64), this.o.backend), digest))
    ) {
      return this.damaged(new StoreDamagedError(what, toHex(digest)));
    }
    return found(bytes);
  }

  /** A read of the store that threw: damage found, or the store not answering. */
  private readFailed(e: unknown): StoreDamaged | StoreUnavailable {
    if (e instanceof StoreDamagedError) return this.damaged(e);
    this.metrics.storeErrors.inc({ op: 'query' });
    this.health.fail('store_queries', `store queries fail: ${describeError(e)}`);
    return this.storeUnavailable('query', 'the store does not answer for now');
  }

  /** Damage of the store: raised, counted and logged once per row (`health.ts`). */
  private damaged(e: StoreDamagedError): StoreDamaged {
    if (this.health.damaged(e.what, e.digest)) this.metrics.storeDamaged.inc({ what: e.what });
    return { kind: 'store_damaged', what: e.what };
  }

  /** The descriptor of the room of an id, when it is the room served. */
  roomDescriptorOf(roomId: Uint8Array): ReadResult {
    return this.roomState.descriptorOf(roomId);
  }

  /** The current key log head of the room of an id, when it is the room served. */
  keyLogHeadOf(roomId: Uint8Array): KeyLogResult {
    return this.roomState.keyLogHeadOf(roomId);
  }

  /** Drops sessions past their TTL and grace, and evidence no later window can name. */
  sweep(budget: number): void {
    const now = this.now();
    this.loadHistory.advance(Number(now / 1_000_000n));
    this.sessions.sweep(budget, Number(now));
    this.index.prune(now);
  }

  private storeFileGone(): StoreUnavailable | undefined {
    if (!this.health.has('store')) return undefined;
    return this.storeUnavailable('file', 'the store file was removed or replaced');
  }

  private storeUnavailable(cause: StoreUnavailable['cause'], why: string): StoreUnavailable {
    return { kind: 'store_unavailable', cause, why };
  }

  /**
   * While the store is told failing, tries it once: an empty commit while commits fail, a read
   * while its queries fail. A store that came back clears its cause without waiting for a
   * request (a balancer that took the instance out of its pool for its 503 sends none).
   */
  async probeStore(): Promise<void> {
    if (this.closed) return;
    if (this.health.has('commit')) await this.queue.probe();
    if (this.health.has('store_queries')) {
      await this.read(
        'policy',
        this.policyDigest,
        () => this.o.store.getBlob('policy', this.policyDigest),
        false,
      );
    }
  }

  /** Prunes the store by age (`retention.ts`); records a current window may name stay. */
  prune(recordsMs: number, decisionsMs: number): Promise<PruneResult> {
    const now = this.now();
    return this.retention.prune(now, windowAt(this.policy, now).a, recordsMs, decisionsMs);
  }

  /** Declines further work and resolves once what is queued is durable. The store stays open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue.close();
  }
}
