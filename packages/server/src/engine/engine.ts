/**
 * The steering engine: the state and the steps of a steering server, behind no door. It holds
 * the sessions and their loads (§6), the evidence index and its per-window cache (§5), the
 * decision signer (§7.3), the group commit and the store (§8.4), and the room the records are
 * verified against (companion C5). A door (the HTTP routes, `app.ts`; a test; a console) gives it
 * a decide request or an ingest request and shows the result it returns; the engine knows no
 * status and no header.
 */
import {
  type Evidence,
  EvidenceCache,
  inWindow,
  MemoryEvidenceStore,
  windowAt,
} from '@wai-steering/evidence';
import { writeManifest } from '@wai-steering/manifest';
import {
  assembleDecision,
  type Protocol,
  protocolOf,
  type Report,
  readReport,
  sessionOf,
} from '@wai-steering/rule';
import { openHopRecord, type RoomContext } from '@wai-steering/verifier';
import {
  bytesEqual,
  digestOf,
  type KeyLog,
  type Policy,
  REASON_NAME,
  type Room,
  readHopRecord,
  signPolicy,
  toHex,
} from '@wai-steering/wire';
import type { ClientBudget } from '../guard/budget.js';
import { RecordHorizon } from '../guard/horizon.js';
import { SessionMac } from '../guard/session-mac.js';
import { describeError, Health } from '../health.js';
import type { InstanceLink } from '../instances/link.js';
import { addLoads } from '../instances/loads.js';
import { type ListingResponse, listDecisions } from '../listing.js';
import { LiveCapacity, type LiveValue } from '../live/capacity.js';
import { type CapacityReport, verifyCapacityReport } from '../live/report.js';
import { Metrics } from '../metrics.js';
import { SessionTable } from '../sessions.js';
import type { PolicyClaim, PruneResult, StoredRecord } from '../store/store.js';
import { monotonicClock } from './clock.js';
import { CommitQueue } from './commit.js';
import { type CheckedPolicy, checkPolicy, pathwayMap } from './policy.js';
import { DecisionSigner } from './signer.js';
import type {
  CapacityResult,
  DecideRequest,
  DecideResult,
  Declined,
  EngineOptions,
  IngestResult,
  KeyLogResult,
  Overloaded,
  PolicyRotated,
  ReadResult,
} from './types.js';

const ABSENT: ReadResult = Object.freeze({ kind: 'absent' });
const NO_REPORT: Report = Object.freeze({ pathway: null, throughput: null, buffer: null });

function found(bytes: Uint8Array | undefined): ReadResult {
  return bytes === undefined ? ABSENT : { kind: 'found', bytes };
}

/** The policy decisions are made under now, with what is built from it. */
interface InForce extends CheckedPolicy {
  readonly ids: string[];
  readonly cache: EvidenceCache;
  readonly signer: DecisionSigner;
}

/** The steering engine. Open one with {@link SteeringEngine.open}. */
export class SteeringEngine {
  /** What the engine counts; the doors add their own (requests, latency). */
  readonly metrics: Metrics;
  /** The sessions and their loads (§6). */
  readonly sessions: SessionTable;
  /** The evidence index: the records a current or later window may name. */
  readonly evidence: MemoryEvidenceStore;
  /** The room clock, µs since the epoch. */
  readonly now: () => bigint;
  private readonly queue: CommitQueue;
  private inForce: InForce;
  /** Live capacity from the sites (`live/`), when the configuration enables it. */
  private readonly live: LiveCapacity | undefined;
  private readonly graceS: number;
  private room_: RoomContext;
  private keyLogBytes: Uint8Array | null;
  private closed = false;
  /** Mints and checks sessions (`guard/session-mac.ts`). */
  readonly sessionMac: SessionMac;
  /** Degraded state (`health.ts`). */
  readonly health: Health;
  /** The records' horizon (`guard/horizon.ts`). */
  readonly horizon: RecordHorizon;
  /** Per-client budgets (`guard/budget.ts`), when on. */
  readonly budget: ClientBudget | undefined;
  private readonly retentionUs: bigint;
  /** The newest decision and record end kept (µs): the anchors of retention. */
  private newestDecision: bigint | undefined;
  private newestRecord: bigint | undefined;
  /** The other instances of the deployment, when there are any (`instances/`). */
  private link_: InstanceLink | undefined;
  /** The `seq` of the policy in force in the store's order of policies; 0 before the first. */
  private policySeq = 0;
  /** The digest of the operator's policy (the template) the policy in force keeps the bounds of. */
  private templateDigest_: Uint8Array;
  /** A template read with another instance's live policy, for `apply`. */
  private adoptedTemplate: Policy | undefined;
  /** The `seq` of a stored policy that was not taken (logged once). */
  private refusedSeq = 0;
  private policyTurn: Promise<unknown> = Promise.resolve();
  /** The `t` of the latest report of each pathway and hop read from the store or shared to it. */
  private readonly seenReports = new Map<string, bigint>();
  /** Whether keeping reports in the store fails (logged once until it works again). */
  private shareFailing = false;

  private constructor(private readonly o: EngineOptions) {
    this.metrics = o.metrics ?? new Metrics();
    this.room_ = o.room;
    this.keyLogBytes = o.keyLogBytes;
    this.now = o.clock ?? monotonicClock();
    this.graceS = Math.ceil(o.graceMs / 1000);
    // Counted in µs of the room clock (docs/audit.md, the load replay).
    this.sessions = new SessionTable(
      o.policy.pathways.map((p) => p.id),
      { maxSessions: o.maxSessions },
    );
    this.evidence = new MemoryEvidenceStore();
    this.inForce = this.build({
      policy: o.policy,
      bytes: o.policyBytes,
      digest: o.policyDigest,
    });
    this.live = o.live === undefined ? undefined : new LiveCapacity(o.policy, o.live);
    this.templateDigest_ = o.policyDigest;
    this.sessionMac = o.sessionMac ?? new SessionMac();
    this.health = o.health ?? new Health();
    this.budget = o.budget;
    const h = o.horizon ?? { maxAheadMs: 60_000, retentionMs: 7 * 86_400_000, maxPerPeriod: 4 };
    this.retentionUs = BigInt(h.retentionMs) * 1000n;
    this.horizon = new RecordHorizon({
      periodUs: o.policy.period_us,
      windowUs: o.policy.window_us,
      maxAheadUs: BigInt(h.maxAheadMs) * 1000n,
      retentionUs: this.retentionUs,
      maxPerPeriod: h.maxPerPeriod,
    });
    this.newestDecision = o.newest?.decision;
    this.newestRecord = o.newest?.record;
    this.queue = new CommitQueue(o.store, {
      maxPending: o.maxQueue,
      onCommit: (size, ok, error) => {
        this.metrics.commits.inc({ outcome: ok ? 'ok' : 'error' });
        this.metrics.batch.observe(size);
        // Logged once per cause (health.ts), never a stack trace per request.
        if (ok) this.health.clear('commit');
        else {
          this.metrics.storeErrors.inc({ op: 'commit' });
          this.health.fail('commit', `group commits fail: ${describeError(error)}`);
        }
      },
    });
  }

  /** What decisions under a policy need: its IDs, its evidence cache, a signer of its digest. */
  private build(checked: CheckedPolicy): InForce {
    const o = this.o;
    return {
      ...checked,
      ids: checked.policy.pathways.map((p) => p.id),
      cache: new EvidenceCache(checked.policy, this.evidence),
      signer: new DecisionSigner(
        o.room.roomId,
        o.publicKey,
        checked.digest,
        o.secretKey,
        o.backend,
        o.encoder,
      ),
    };
  }

  /**
   * Opens an engine over a store: keeps the policy, the room descriptor and the key log head in
   * it (a verifier fetches them by digest, and they outlive a configuration change), loads the
   * records a current or later window may name into the evidence index, and checks the
   * decision encoder against wire's `signDecision`.
   */
  static async open(options: EngineOptions): Promise<SteeringEngine> {
    const engine = new SteeringEngine(options);
    const { store } = options;
    await store.putBlob('policy', options.policyDigest, options.policyBytes);
    await store.putBlob('room', options.room.roomId, options.roomBytes);
    await engine.keepKeyLog(options.room, options.keyLogBytes);
    await engine.joinStore();
    await engine.readReports();
    await engine.loadEvidence();
    engine.registerGauges();
    engine.selfCheck();
    return engine;
  }

  /** The policy in force: the one decisions are made under now. */
  get policy(): Policy {
    return this.inForce.policy;
  }

  /** The digest (§3.4) of the policy in force. */
  get policyDigest(): Uint8Array {
    return this.inForce.digest;
  }

  /** The bytes of the policy in force. */
  get policyBytes(): Uint8Array {
    return this.inForce.bytes;
  }

  /**
   * The digest of the operator's policy the policy in force keeps the bounds of: the policy in
   * force itself, unless it was signed from live capacity.
   */
  get templateDigest(): Uint8Array {
    return this.templateDigest_;
  }

  /** Each pathway's live capacity and latency, and where they come from (`live/`). */
  liveValues(): LiveValue[] | undefined {
    return this.live?.values(this.now());
  }

  /** The room the records are verified against, with its key log head. */
  get room(): RoomContext {
    return this.room_;
  }

  /** The room descriptor. */
  get roomDescriptor(): Room {
    return this.room_.room;
  }

  /** The current key log head, `undefined` when the room names no origin. */
  get keyLog(): KeyLog | undefined {
    return this.room_.keyLog;
  }

  /** Whether the engine is closing (it then declines every decide and ingest request). */
  get closing(): boolean {
    return this.closed;
  }

  /** §5: the evidence at instant `t`, as a decision at `t` reads it (the per-window cache). */
  evidenceAt(t: bigint): Evidence {
    return this.inForce.cache.at(t);
  }

  /** Decisions and records awaiting their group commit. */
  get pendingCommits(): number {
    return this.queue.pending;
  }

  /**
   * Replaces the room context (a new key log head, verified by the caller with `openRoom`):
   * the head is kept in the store, then served and used to verify records.
   */
  async replaceRoom(room: RoomContext, keyLogBytes: Uint8Array | null): Promise<void> {
    if (!bytesEqual(room.roomId, this.o.room.roomId)) {
      throw new TypeError('replaceRoom: the room is not the one the engine serves');
    }
    await this.keepKeyLog(room, keyLogBytes);
    this.room_ = room;
    this.keyLogBytes = keyLogBytes;
  }

  private async keepKeyLog(room: RoomContext, bytes: Uint8Array | null): Promise<void> {
    if (bytes === null || room.keyLog === undefined) return;
    await this.o.store.putBlob('key-log', digestOf(room.keyLog, this.o.backend), bytes);
  }

  /**
   * Puts a policy in force (§3): one the operator rotated in, or one the server signed from live
   * capacity. It must be of the room, verify and have a signer that may sign it (§3.5). It is
   * kept in the store before any decision names it, so that `/policies/<digest>` serves it as
   * long as decisions are. Sessions and loads carry over: when the pathways' IDs change, each
   * session moves to its pathway's new index, and a removed pathway's sessions are dropped.
   *
   * On a store shared by several instances the policy is put in force for all of them: the
   * rotation is written to the store's order of policies (`claimPolicy`), and the others adopt
   * it. An operator's rotation that another instance's overtakes is written again after it.
   */
  async rotatePolicy(bytes: Uint8Array, by: 'operator' | 'live'): Promise<PolicyRotated> {
    const checked = checkPolicy(this.room_, bytes, this.o.backend);
    if (!checked.ok) throw new TypeError(`rotatePolicy: the policy ${checked.problem}`);
    return this.serially(async () => {
      for (let attempt = 0; attempt < 8; attempt++) {
        const r = await this.rotateNow(checked.value, by);
        if (r !== undefined) return r;
      }
      throw new Error(
        this.refusedSeq > this.policySeq
          ? 'rotatePolicy: the policy another instance put in force could not be taken here (see the log), so this one cannot follow it'
          : 'rotatePolicy: other instances kept rotating the policy first',
      );
    });
  }

  /** Policy changes, one at a time (a rotation, an adoption, a report's rotation). */
  private serially<T>(f: () => Promise<T>): Promise<T> {
    const run = this.policyTurn.then(f, f);
    this.policyTurn = run.catch(() => {});
    return run;
  }

  /** Checks a policy against the engine's encoder and builds what decisions under it need. */
  private prepare(checked: CheckedPolicy): InForce {
    const next = this.build(checked);
    const { fields, evidence } = this.assembleUnder(
      next,
      this.now(),
      new Uint8Array(16),
      'hls',
      NO_REPORT,
      next.ids.map(() => 0),
    );
    next.signer.selfCheck(fields, evidence);
    return next;
  }

  /**
   * One attempt at a rotation: `undefined` when another instance put a policy in force first
   * (then adopted here).
   */
  private async rotateNow(
    checked: CheckedPolicy,
    by: 'operator' | 'live',
  ): Promise<PolicyRotated | undefined> {
    const next = this.prepare(checked);
    const store = this.o.store;
    const claim: PolicyClaim = {
      seq: this.policySeq + 1,
      digest: next.digest,
      bytes: next.bytes,
      template: by === 'operator' ? next.digest : this.templateDigest_,
      at: this.now(),
      by,
    };
    if (store.claimPolicy !== undefined) {
      if (!(await store.claimPolicy(this.o.room.roomId, claim))) {
        await this.adoptNow();
        return undefined;
      }
      this.link_?.announceLive?.('policy');
    } else {
      await store.putBlob('policy', next.digest, next.bytes);
    }
    return this.apply(next, claim);
  }

  /** Puts a prepared policy in force under its claim. */
  private apply(next: InForce, claim: PolicyClaim, counted = true): PolicyRotated {
    const map = pathwayMap(this.inForce.policy, next.policy);
    // The sessions follow the policy of the next decision by pathway ID (sessions.ts).
    this.sessions.show(next.ids);
    const previous = this.inForce.digest;
    this.inForce = next;
    this.policySeq = claim.seq;
    const templateChanged = !bytesEqual(claim.template, this.templateDigest_);
    this.templateDigest_ = claim.template;
    if (claim.by === 'operator') this.live?.setTemplate(next.policy);
    else if (templateChanged && this.adoptedTemplate !== undefined) {
      this.live?.setTemplate(this.adoptedTemplate);
    }
    this.adoptedTemplate = undefined;
    // The next live rotation waits a period from this one, on every instance alike.
    this.live?.rotated(claim.at);
    if (counted) this.metrics.rotations.inc({ by: claim.by });
    return {
      kind: 'rotated',
      by: claim.by,
      digest: next.digest,
      previous,
      remapped: map !== undefined,
    };
  }

  /**
   * Adopts the policy the store has in force when another instance put it there (its bytes are
   * checked as the operator's are: room, signature, signer); `undefined` when there is none newer.
   */
  async adoptPolicy(): Promise<PolicyRotated | undefined> {
    const adopted = await this.serially(() => this.adoptNow());
    // The reports it was signed from, which the other instance kept before it.
    if (adopted !== undefined) await this.readReports();
    return adopted;
  }

  private async adoptNow(): Promise<PolicyRotated | undefined> {
    const store = this.o.store;
    if (store.policyInForce === undefined || this.closed) return undefined;
    const claim = await store.policyInForce(this.o.room.roomId);
    if (claim === undefined || claim.seq <= this.policySeq) return undefined;
    if (bytesEqual(claim.digest, this.inForce.digest)) {
      this.policySeq = claim.seq;
      this.live?.rotated(claim.at);
      return undefined;
    }
    const checked = checkPolicy(this.room_, claim.bytes, this.o.backend);
    if (!checked.ok) {
      this.refusedClaim(claim, checked.problem);
      return undefined;
    }
    if (claim.by === 'live' && !bytesEqual(claim.template, this.templateDigest_)) {
      // A live policy of another template: its bounds are the template's, read from the store.
      const bytes = await store.getBlob('policy', claim.template);
      const template =
        bytes === undefined ? undefined : checkPolicy(this.room_, bytes, this.o.backend);
      if (template === undefined || !template.ok) {
        this.refusedClaim(claim, 'names a template the store does not hold, or one that fails');
        return undefined;
      }
      this.adoptedTemplate = template.value.policy;
    }
    return this.apply(this.prepare(checked.value), claim);
  }

  /** A policy of the store this instance cannot take: logged once, the one in force stays. */
  private refusedClaim(claim: PolicyClaim, problem: string): void {
    if (this.refusedSeq === claim.seq) return;
    this.refusedSeq = claim.seq;
    console.error(
      `wai-steering: the policy ${toHex(claim.digest)} another instance put in force was not taken: it ${problem}`,
    );
  }

  /**
   * At start, on a store that orders policies: joins the policy in force when it keeps this
   * configuration's bounds (this policy, or one signed from live capacity over it, when live
   * capacity is on); otherwise puts this configuration's policy in force for every instance (a
   * new policy file, as SIGHUP would).
   */
  private async joinStore(): Promise<void> {
    const store = this.o.store;
    if (store.policyInForce === undefined || store.claimPolicy === undefined) return;
    const mine = this.inForce;
    for (let attempt = 0; attempt < 8; attempt++) {
      const claim = await store.policyInForce(this.o.room.roomId);
      if (
        claim !== undefined &&
        bytesEqual(claim.template, mine.digest) &&
        (this.live !== undefined || bytesEqual(claim.digest, mine.digest))
      ) {
        if (bytesEqual(claim.digest, mine.digest)) {
          this.policySeq = claim.seq;
          this.live?.rotated(claim.at);
          return;
        }
        const checked = checkPolicy(this.room_, claim.bytes, this.o.backend);
        if (checked.ok) {
          // Joined, not rotated: the rotations metric counts this instance's changes.
          this.apply(this.prepare(checked.value), claim, false);
          return;
        }
      }
      const seq = (claim?.seq ?? 0) + 1;
      const at = this.now();
      const own: PolicyClaim = {
        seq,
        digest: mine.digest,
        bytes: mine.bytes,
        template: mine.digest,
        at,
        by: 'operator',
      };
      if (await store.claimPolicy(this.o.room.roomId, own)) {
        this.policySeq = seq;
        if (claim !== undefined) this.live?.rotated(at);
        return;
      }
    }
    throw new Error('the store: other instances kept rotating the policy while this one started');
  }

  /**
   * A site's capacity report (`live/report.ts`): verified, held, and when the live values call
   * for it (and no policy was signed in this period), a new policy signed with the steering key
   * and put in force. On a shared store the report is kept for the other instances too.
   */
  async offerCapacity(jws: string): Promise<CapacityResult> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.live === undefined) return { kind: 'capacity_off' };
    const verified = await this.verifyReport(jws, false);
    if (!verified.ok) {
      this.metrics.capacityReports.inc({ result: verified.refusal.reason });
      return { kind: 'report_refused', ...verified.refusal };
    }
    const report = verified.report;
    const offered = this.live.offer(report);
    this.metrics.capacityReports.inc({ result: offered });
    let rotated: PolicyRotated | undefined;
    if (offered === 'taken') {
      await this.shareReport(report, jws.trim());
      try {
        rotated = await this.tickLive();
      } catch (e) {
        // The report is taken all the same; the policy it calls for is signed in a later period.
        this.metrics.storeErrors.inc({ op: 'capacity' });
        console.error(`wai-steering: signing a live policy failed: ${describeError(e)}`);
      }
    }
    return {
      kind: 'report',
      taken: offered === 'taken',
      report,
      ...(rotated === undefined ? {} : { rotated }),
    };
  }

  private verifyReport(jws: string, held: boolean) {
    return verifyCapacityReport(jws, {
      room: this.room_,
      policy: this.inForce.policy,
      now: this.now(),
      maxAheadUs: this.o.live?.maxAheadUs ?? 5_000_000n,
      held,
    });
  }

  /** Keeps a report taken here for the other instances (a store failure keeps it here only). */
  private async shareReport(report: CapacityReport, jws: string): Promise<void> {
    const store = this.o.store;
    if (store.putCapacityReport === undefined) return;
    const pathway = this.inForce.ids[report.pathway]!;
    this.seenReports.set(`${pathway} ${report.hop}`, report.t);
    try {
      if (
        await store.putCapacityReport(this.o.room.roomId, {
          pathway,
          hop: report.hop,
          t: report.t,
          jws,
        })
      ) {
        this.link_?.announceLive?.('capacity');
      }
    } catch (e) {
      this.metrics.storeErrors.inc({ op: 'capacity' });
      if (!this.shareFailing) {
        console.error(`wai-steering: capacity reports are not shared: ${describeError(e)}`);
      }
      this.shareFailing = true;
      return;
    }
    this.shareFailing = false;
  }

  /**
   * The reports the store keeps that this instance has not taken (the other instances took them):
   * each verified again, as if posted here, except that one past its expiry is taken too (it
   * counts as GAS 0, CATS's age-out).
   */
  private async readReports(): Promise<void> {
    const store = this.o.store;
    if (this.live === undefined || store.capacityReports === undefined || this.closed) return;
    const rows = await store.capacityReports(this.o.room.roomId);
    for (const r of rows) {
      const key = `${r.pathway} ${r.hop}`;
      const seen = this.seenReports.get(key);
      if (seen !== undefined && seen >= r.t) continue;
      this.seenReports.set(key, r.t);
      const verified = await this.verifyReport(r.jws, true);
      if (verified.ok && this.live.offer(verified.report) === 'taken') {
        this.metrics.capacityReports.inc({ result: 'shared' });
      }
    }
  }

  /**
   * Catches up with the other instances (the policy in force, the site reports they took), then
   * signs the policy the live values call for, if any: the server calls it on a timer and when
   * the store announces a change.
   */
  async syncLive(): Promise<PolicyRotated | undefined> {
    if (this.closed) return undefined;
    const adopted = await this.serially(() => this.adoptNow());
    await this.readReports();
    return (await this.tickLive()) ?? adopted;
  }

  /**
   * Signs and puts in force the policy the live values call for now, if any (a report, or a
   * report's expiry passing: the server calls this on a timer so that a site that stops
   * reporting ages out).
   */
  tickLive(): Promise<PolicyRotated | undefined> {
    return this.serially(async () => {
      const live = this.live;
      if (live === undefined || this.closed) return undefined;
      const next = live.next(this.inForce.policy, this.now(), this.o.publicKey);
      if (next === undefined) return undefined;
      const bytes = signPolicy(next, this.o.secretKey, { backend: this.o.backend });
      const checked = checkPolicy(this.room_, bytes, this.o.backend);
      if (!checked.ok) throw new TypeError(`tickLive: the signed policy ${checked.problem}`);
      // Another instance's rotation first: adopted instead (one policy per period for all).
      return this.rotateNow(checked.value, 'live');
    });
  }

  /** The records of the store a current or later window may name, into the evidence index. */
  private async loadEvidence(): Promise<void> {
    const { a } = windowAt(this.inForce.policy, this.now());
    for await (const r of this.o.store.recordsEndingAfter(a)) {
      const read = readHopRecord(r.bytes);
      if (read.ok && this.evidence.add(read.value, r.digest)) this.horizon.taken(read.value);
    }
  }

  private registerGauges(): void {
    const m = this.metrics;
    m.gauge(
      'wai_steering_load',
      'Sessions steered first to each pathway (§6), the loads decisions state.',
      () => {
        const loads = this.sessions.loadsAt(Number(this.now()));
        return this.inForce.ids.map((id, i) => [{ pathway: id }, loads[i]!] as const);
      },
    );
    m.gauge('wai_steering_sessions', 'Live sessions held by the session table.', () => [
      [{}, this.sessions.size],
    ]);
    m.gauge(
      'wai_steering_commit_queue',
      'Decisions and records awaiting their group commit.',
      () => [[{}, this.queue.pending]],
    );
    m.gauge('wai_steering_evidence_records', 'Records held in the evidence index.', () => [
      [{}, this.evidence.size],
    ]);
    m.gauge(
      'wai_steering_pathway_status',
      'Each pathway status (§5.3: 0 figure, 1 unmetered, 2 mixed, 3 stale, 4 empty) in the current window.',
      () => {
        const ev = this.inForce.cache.at(this.now());
        return this.inForce.ids.map((id, i) => [{ pathway: id }, ev.pathways[i]!.status] as const);
      },
    );
    m.gauge(
      'wai_steering_live_capacity',
      'Each pathway capacity in the policy in force, and where it comes from (template, reports, expired).',
      () => {
        const policy = this.inForce.policy;
        const values = this.live?.values(this.now());
        return policy.pathways.map(
          (p, i) =>
            [{ pathway: p.id, source: values?.[i]?.source ?? 'template' }, p.capacity] as const,
        );
      },
    );
    m.gauge(
      'wai_steering_live_report_age_seconds',
      'The age of the newest capacity report of each pathway that has one.',
      () => {
        const values = this.live?.values(this.now()) ?? [];
        const out: (readonly [Record<string, string>, number])[] = [];
        values.forEach((v, i) => {
          if (v.ageUs !== null) {
            out.push([{ pathway: this.inForce.ids[i]! }, Number(v.ageUs) / 1e6] as const);
          }
        });
        return out;
      },
    );
  }

  /** §7.1: the fields of a decision at `t` under a policy, over its evidence and `loads`. */
  private assembleUnder(
    under: InForce,
    t: bigint,
    session: Uint8Array,
    protocol: Protocol,
    report: Report,
    loads: number[],
  ) {
    const o = this.o;
    const evidence = under.cache.at(t);
    const fields = assembleDecision({
      roomId: this.room_.roomId,
      signer: o.publicKey,
      policy: under.policy,
      policyDigest: under.digest,
      t,
      session,
      protocol,
      report,
      evidence,
      loads,
      backend: o.backend,
    });
    return { fields, evidence };
  }

  /**
   * Signs one decision over the current evidence with the server's encoder and with wire's
   * `signDecision`, and throws unless the bytes are the same. {@link SteeringEngine.open} runs it.
   */
  selfCheck(): void {
    const under = this.inForce;
    const loads = Array.from(this.sessions.loads);
    const { fields, evidence } = this.assembleUnder(
      under,
      this.now(),
      new Uint8Array(16),
      'hls',
      NO_REPORT,
      loads,
    );
    under.signer.selfCheck(fields, evidence);
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
   * A steering request (§4, §6, §7, §8.1): the report, the session, the decision over the
   * current evidence and loads, signed, archived (durable), then the manifest.
   */
  async decide(request: DecideRequest): Promise<DecideResult> {
    if (this.closed) return this.overloaded('the server is closing');
    // A decision served now could not be fetched after a restart (§8.4): none is served.
    if (this.health.has('store')) {
      return {
        kind: 'declined',
        cause: 'store',
        why: 'the store file was removed or replaced',
        retryAfterS: 60,
      };
    }
    if (this.queue.full) return this.overloaded('too many decisions await their commit');
    const o = this.o;
    // One policy for the whole decision, whatever rotates while it awaits its commit.
    const under = this.inForce;
    const { target, cmcd } = request;
    const protocol = protocolOf(target);
    let given = sessionOf(target);
    // A session the server did not mint is treated as absent (guard/session-mac.ts).
    if (given !== undefined && !this.sessionMac.check(given)) {
      this.metrics.forgedSessions.inc();
      given = undefined;
    }
    if (given === undefined) {
      const declined = this.spend('sessions', request.client);
      if (declined !== undefined) return declined;
    }
    const session = given ?? this.sessionMac.mint();
    const report = readReport(
      { protocol, target, headers: cmcd === undefined ? {} : { 'cmcd-request': cmcd } },
      under.ids,
    );
    let t = request.t ?? this.now();
    // A new window: the records the other instances stored are read first (`instances/feed.ts`);
    // again should the clock have reached a further window meanwhile.
    for (let i = 0; i < 3; i++) {
      const caughtUp = this.link_?.beforeWindow?.(windowAt(under.policy, t).a);
      if (caughtUp === undefined) break;
      await caughtUp.catch((e: unknown) => {
        console.error('wai-steering: the catch-up of records failed:', e);
      });
      t = request.t ?? this.now();
    }
    const now = Number(t);
    // §6: the loads as they stand, this session's own count included (§6.1: c's load already
    // counts the client); a session past its TTL and grace no longer counts. The sessions are
    // counted under this decision's policy, carried by pathway ID from the last decision's.
    this.sessions.follow(under.ids);
    const previous = this.sessions.current(session, now);
    if (previous < 0 && this.sessions.size >= o.maxSessions) {
      return this.overloaded('the session table is full');
    }
    // §6: this instance's own loads, every session whose end has come out, swept or not
    // (docs/audit.md, the load replay), plus its live peers' latest (`instances/loads.ts`).
    const loads = addLoads(this.sessions.loadsAt(now, under.ids), this.link_?.peers);
    const { fields, evidence } = this.assembleUnder(under, t, session, protocol, report, loads);
    const signed = under.signer.sign(fields, evidence);
    const digest = signed.digest;
    // After deciding, the session counts in its new first pathway until TTL + grace.
    this.sessions.place(session, fields.priority[0]!, now + (fields.ttl + this.graceS) * 1_000_000);
    try {
      await this.queue.addDecision(signed);
    } catch {
      return this.overloaded('the decision could not be archived');
    }
    if (this.newestDecision === undefined || t > this.newestDecision) this.newestDecision = t;
    const reason = fields.reason;
    this.metrics.decisions.incKey(String(reason), () => ({
      reason: REASON_NAME[reason] ?? String(reason),
    }));
    o.observer?.decided(fields, digest);
    const body = writeManifest(
      under.policy,
      { session, ttl: fields.ttl, priority: fields.priority },
      digest,
    );
    return { kind: 'manifest', body, digest, fields };
  }

  /** A hop's `WMH1` (companion C5): verified against the room, archived, then evidence. */
  async ingest(bytes: Uint8Array): Promise<IngestResult> {
    if (this.closed) return this.overloaded('the server is closing');
    if (this.queue.full) return this.overloaded('too many writes await their commit');
    const opened = openHopRecord(this.room_, bytes, { backend: this.o.backend });
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
    const outside = this.horizon.check(record, now);
    if (outside !== undefined && (await this.o.store.getRecord(digest)) === undefined) {
      this.metrics.horizonRefused.inc({ error: outside.error });
      return { kind: 'outside', refusal: outside };
    }
    let inserted: boolean;
    try {
      inserted = await this.queue.addRecord({
        digest,
        bytes,
        hop: record.hop,
        start: record.start,
        end: record.end,
      });
    } catch {
      return this.overloaded('the record could not be archived');
    }
    // Durable now: the next window move may name it. A record of the window in use arrived
    // after its lag L (or before the server's first request of the window, after a restart):
    // the evidence is selected again, so that the window's later decisions name it.
    if (this.evidence.add(record, digest)) {
      this.horizon.taken(record);
      if (inWindow(record, windowAt(this.inForce.policy, this.now()))) {
        this.inForce.cache.invalidate();
      }
    }
    let end = record.end;
    if (end > now) end = now;
    if (inserted && (this.newestRecord === undefined || end > this.newestRecord)) {
      this.newestRecord = end;
    }
    if (inserted) {
      this.link_?.stored?.({
        digest,
        bytes,
        hop: record.hop,
        start: record.start,
        end: record.end,
      });
    }
    this.metrics.ingested.inc({ result: inserted ? 'new' : 'duplicate' });
    this.o.observer?.ingested(record.hop, inserted ? 'new' : 'duplicate', record);
    // Taken, but named by no decision while its hop is on no pathway of the policy in force (§5.2
    // names only a pathway's hops): said, so that a hop's operator sees it.
    const onPathway = this.inForce.policy.pathways.some((p) =>
      p.hops.some((h) => bytesEqual(h.key, record.hop)),
    );
    return {
      kind: 'stored',
      digest,
      inserted,
      record,
      ...(onPathway ? {} : { unused: 'its hop is on no pathway of the policy in force' }),
    };
  }

  /** Shares the engine with the other instances of its deployment (`instances/link.ts`). */
  linkInstances(link: InstanceLink | undefined): void {
    this.link_ = link;
  }

  /**
   * A record another instance stored (it verified it against the same room): into the evidence
   * index; a record of the window in use makes the window's evidence be selected again. Whether
   * it was new here.
   */
  learnRecord(r: StoredRecord): boolean {
    const read = readHopRecord(r.bytes);
    if (!read.ok || !this.evidence.add(read.value, r.digest)) return false;
    this.horizon.taken(read.value);
    if (inWindow(read.value, windowAt(this.inForce.policy, this.now()))) {
      this.inForce.cache.invalidate();
    }
    return true;
  }

  /** §8.4: the decision of a digest, its exact bytes. */
  async decision(digest: Uint8Array): Promise<ReadResult> {
    return found(await this.o.store.getDecision(digest));
  }

  /**
   * `GET /decisions`: the decisions by time, a page at a time (`listing.ts`), with the policy's
   * `decision_uri` and the grace in whole seconds.
   */
  listing(query: string): Promise<ListingResponse> {
    return listDecisions(this.o.store, query, {
      decision_uri: this.inForce.policy.decision_uri,
      grace_s: this.graceS,
    });
  }

  /** The per-hop record of a digest (C1). */
  async record(digest: Uint8Array): Promise<ReadResult> {
    return found(await this.o.store.getRecord(digest));
  }

  /** The policy of a digest (§3.4): the one in force, or one kept (an earlier one). */
  async policyOf(digest: Uint8Array): Promise<ReadResult> {
    if (bytesEqual(digest, this.inForce.digest)) return found(this.inForce.bytes);
    return found(await this.o.store.getBlob('policy', digest));
  }

  /** The descriptor of the room of an id, when it is the room served. */
  roomDescriptorOf(roomId: Uint8Array): ReadResult {
    return bytesEqual(roomId, this.o.room.roomId) ? found(this.o.roomBytes) : ABSENT;
  }

  /** The current key log head of the room of an id, when it is the room served. */
  keyLogHeadOf(roomId: Uint8Array): KeyLogResult {
    if (!bytesEqual(roomId, this.o.room.roomId)) return ABSENT;
    if (this.keyLogBytes === null || this.room_.keyLog === undefined) return { kind: 'no_key_log' };
    return found(this.keyLogBytes);
  }

  /** Drops sessions past their TTL and grace, and evidence no later window can name. */
  sweep(budget: number): void {
    const now = this.now();
    this.sessions.sweep(budget, Number(now));
    const { a } = windowAt(this.inForce.policy, now);
    this.evidence.prune(a);
    this.horizon.prune(now - this.retentionUs);
  }

  /**
   * A client's budget (`guard/budget.ts`): `requests` is spent by the doors on steering and
   * ingest, `sessions` by {@link SteeringEngine.decide} on each session it mints. A
   * {@link Declined} past it.
   */
  spend(budget: 'requests' | 'sessions', client: string | undefined): Declined | undefined {
    const b = this.budget;
    if (b === undefined) return undefined;
    const wait = budget === 'requests' ? b.request(client) : b.newSession(client);
    if (wait === 0) return undefined;
    this.metrics.budgetRefused.inc({ budget });
    return {
      kind: 'declined',
      cause: 'budget',
      why:
        budget === 'requests'
          ? 'this client sent too many requests'
          : 'this client asked for too many new sessions',
      retryAfterS: wait,
    };
  }

  /**
   * Notes what sits at the store's path (`SqliteStore.fileState`): anything but `ok` raises the
   * `store` cause (decide then declines, `/healthz` answers 503), logged once.
   */
  noteStoreFile(state: 'ok' | 'removed' | 'replaced'): void {
    if (state === 'ok') return;
    if (!this.health.has('store')) this.metrics.storeErrors.inc({ op: 'file' });
    this.health.fail(
      'store',
      state === 'removed'
        ? 'the store file was removed while the server runs: decisions served now could not be fetched after a restart'
        : 'another file sits at the store path while the server runs: decisions served now would not be in it',
    );
  }

  /**
   * Prunes the store by age (§8.4: a record named by a kept decision stays), counting back from
   * the newest decision and record kept, never from the clock alone (a failure raises the
   * `prune` cause of health, logged once). A record that a
   * current or later window may still name (one that ends after the current window's start) is
   * kept whatever its age, so that the evidence index never names a record the store dropped.
   */
  async prune(recordsMs: number, decisionsMs: number): Promise<PruneResult> {
    const now = this.now();
    const { a } = windowAt(this.inForce.policy, now);
    // Never by the clock alone: no decision newer than the newest kept minus its retention goes,
    // nor a record newer than the newest record kept minus its retention (a clock that jumped
    // ahead cannot empty the store).
    const anchor = (newest: bigint | undefined): bigint =>
      newest === undefined || newest > now ? now : newest;
    let recordsBefore = anchor(this.newestRecord) - BigInt(recordsMs) * 1000n;
    if (recordsBefore > a) recordsBefore = a;
    const decisionsBefore = anchor(this.newestDecision) - BigInt(decisionsMs) * 1000n;
    try {
      const r = await this.o.store.prune(recordsBefore, decisionsBefore);
      this.health.clear('prune');
      return r;
    } catch (e) {
      this.metrics.storeErrors.inc({ op: 'prune' });
      this.health.fail('prune', `pruning fails: ${describeError(e)}`);
      return { records: 0, decisions: 0, sets: 0 };
    }
  }

  /** Declines further work and resolves once what is queued is durable. The store stays open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue.close();
  }
}
