/**
 * The steering engine: the state and the steps of a steering server, behind no door. It holds
 * the sessions and their loads (§6), the evidence index and its per-window cache (§5), the
 * decision signer (§7.3), the group commit and the store (§8.4), and the room the records are
 * verified against (companion C5). A door (the HTTP routes, `app.ts`; a test; a console) gives it
 * a decide request or an ingest request and shows the result it returns; the engine knows no
 * status and no header.
 */
import { randomBytes } from 'node:crypto';
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
  REASON_NAME,
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
  type Room,
  readHopRecord,
} from '@wai-steering/wire';
import { Metrics } from '../metrics.js';
import { SessionTable } from '../sessions.js';
import type { PruneResult } from '../store/store.js';
import { monotonicClock } from './clock.js';
import { CommitQueue } from './commit.js';
import { DecisionSigner } from './signer.js';
import type {
  DecideRequest,
  DecideResult,
  EngineOptions,
  IngestResult,
  KeyLogResult,
  Overloaded,
  ReadResult,
} from './types.js';

const ABSENT: ReadResult = Object.freeze({ kind: 'absent' });

function found(bytes: Uint8Array | undefined): ReadResult {
  return bytes === undefined ? ABSENT : { kind: 'found', bytes };
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
  private readonly cache: EvidenceCache;
  private readonly signer: DecisionSigner;
  private readonly pathwayIds: string[];
  private readonly graceS: number;
  private room_: RoomContext;
  private keyLogBytes: Uint8Array | null;
  private closed = false;

  private constructor(private readonly o: EngineOptions) {
    this.metrics = o.metrics ?? new Metrics();
    this.room_ = o.room;
    this.keyLogBytes = o.keyLogBytes;
    this.now = o.clock ?? monotonicClock();
    this.pathwayIds = o.policy.pathways.map((p) => p.id);
    this.graceS = Math.ceil(o.graceMs / 1000);
    this.sessions = new SessionTable(o.policy.pathways.length, {
      maxSessions: o.maxSessions,
      base: Number(this.now() / 1000n),
    });
    this.evidence = new MemoryEvidenceStore();
    this.cache = new EvidenceCache(o.policy, this.evidence);
    this.queue = new CommitQueue(o.store, {
      maxPending: o.maxQueue,
      onCommit: (size, ok, error) => {
        this.metrics.commits.inc({ outcome: ok ? 'ok' : 'error' });
        this.metrics.batch.observe(size);
        if (!ok) console.error('wai-steering: a group commit failed:', error);
      },
    });
    this.signer = new DecisionSigner(
      o.room.roomId,
      o.publicKey,
      o.policyDigest,
      o.secretKey,
      o.backend,
      o.encoder,
    );
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
    await engine.loadEvidence();
    engine.registerGauges();
    engine.selfCheck();
    return engine;
  }

  /** The policy served. */
  get policy(): Policy {
    return this.o.policy;
  }

  /** The policy's digest (§3.4). */
  get policyDigest(): Uint8Array {
    return this.o.policyDigest;
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
    return this.cache.at(t);
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

  /** The records of the store a current or later window may name, into the evidence index. */
  private async loadEvidence(): Promise<void> {
    const { a } = windowAt(this.o.policy, this.now());
    for await (const r of this.o.store.recordsEndingAfter(a)) {
      const read = readHopRecord(r.bytes);
      if (read.ok) this.evidence.add(read.value, r.digest);
    }
  }

  private registerGauges(): void {
    const m = this.metrics;
    m.gauge(
      'wai_steering_load',
      'Sessions steered first to each pathway (§6), the loads decisions state.',
      () => this.pathwayIds.map((id, i) => [{ pathway: id }, this.sessions.loads[i]!] as const),
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
        const ev = this.cache.at(this.now());
        return this.pathwayIds.map((id, i) => [{ pathway: id }, ev.pathways[i]!.status] as const);
      },
    );
  }

  /** §7.1: the fields of a decision at `t` over the current evidence and loads. */
  private assemble(t: bigint, session: Uint8Array, protocol: Protocol, report: Report) {
    const o = this.o;
    const evidence = this.cache.at(t);
    const fields = assembleDecision({
      roomId: this.room_.roomId,
      signer: o.publicKey,
      policy: o.policy,
      policyDigest: o.policyDigest,
      t,
      session,
      protocol,
      report,
      evidence,
      loads: Array.from(this.sessions.loads),
      backend: o.backend,
    });
    return { fields, evidence };
  }

  /**
   * Signs one decision over the current evidence with the server's encoder and with wire's
   * `signDecision`, and throws unless the bytes are the same. {@link SteeringEngine.open} runs it.
   */
  selfCheck(): void {
    const report = { pathway: null, throughput: null, buffer: null };
    const { fields, evidence } = this.assemble(this.now(), new Uint8Array(16), 'hls', report);
    this.signer.selfCheck(fields, evidence);
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
    if (this.queue.full) return this.overloaded('too many decisions await their commit');
    const o = this.o;
    const { target, cmcd } = request;
    const protocol = protocolOf(target);
    const session = sessionOf(target) ?? new Uint8Array(randomBytes(16));
    const report = readReport(
      { protocol, target, headers: cmcd === undefined ? {} : { 'cmcd-request': cmcd } },
      this.pathwayIds,
    );
    const t = request.t ?? this.now();
    const now = this.sessions.secondsAt(Number(t / 1000n));
    // §6: the loads as they stand, this session's own count included (§6.1: c's load already
    // counts the client); a session past its TTL and grace no longer counts.
    const previous = this.sessions.current(session, now);
    if (previous < 0 && this.sessions.size >= o.maxSessions) {
      return this.overloaded('the session table is full');
    }
    const { fields, evidence } = this.assemble(t, session, protocol, report);
    const signed = this.signer.sign(fields, evidence);
    const digest = signed.digest;
    // After deciding, the session counts in its new first pathway until TTL + grace.
    this.sessions.place(session, fields.priority[0]!, now + fields.ttl + this.graceS);
    try {
      await this.queue.addDecision(signed);
    } catch {
      return this.overloaded('the decision could not be archived');
    }
    const reason = fields.reason;
    this.metrics.decisions.incKey(String(reason), () => ({
      reason: REASON_NAME[reason] ?? String(reason),
    }));
    o.observer?.decided(fields, digest);
    const body = writeManifest(
      o.policy,
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
      return { kind: 'refused', reason, where: { ...where } };
    }
    const { record, digest } = opened.value;
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
    if (
      this.evidence.add(record, digest) &&
      inWindow(record, windowAt(this.o.policy, this.now()))
    ) {
      this.cache.invalidate();
    }
    this.metrics.ingested.inc({ result: inserted ? 'new' : 'duplicate' });
    this.o.observer?.ingested(record.hop, inserted ? 'new' : 'duplicate', record);
    return { kind: 'stored', digest, inserted, record };
  }

  /** §8.4: the decision of a digest, its exact bytes. */
  async decision(digest: Uint8Array): Promise<ReadResult> {
    return found(await this.o.store.getDecision(digest));
  }

  /** The per-hop record of a digest (C1). */
  async record(digest: Uint8Array): Promise<ReadResult> {
    return found(await this.o.store.getRecord(digest));
  }

  /** The policy of a digest (§3.4): the one served, or one kept from an earlier start. */
  async policyOf(digest: Uint8Array): Promise<ReadResult> {
    if (bytesEqual(digest, this.o.policyDigest)) return found(this.o.policyBytes);
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
    this.sessions.sweep(budget, this.sessions.secondsAt(Number(now / 1000n)));
    const { a } = windowAt(this.o.policy, now);
    this.evidence.prune(a);
  }

  /**
   * Prunes the store by age (§8.4: a record named by a kept decision stays). A record that a
   * current or later window may still name (one that ends after the current window's start) is
   * kept whatever its age, so that the evidence index never names a record the store dropped.
   */
  prune(recordsMs: number, decisionsMs: number): Promise<PruneResult> {
    const now = this.now();
    const { a } = windowAt(this.o.policy, now);
    let recordsBefore = now - BigInt(recordsMs) * 1000n;
    if (recordsBefore > a) recordsBefore = a;
    return this.o.store.prune(recordsBefore, now - BigInt(decisionsMs) * 1000n);
  }

  /** Declines further work and resolves once what is queued is durable. The store stays open. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue.close();
  }
}
