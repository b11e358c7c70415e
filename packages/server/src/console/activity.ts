/**
 * What the console shows over time, kept in memory: the recent decisions, each hop's ingest
 * tallies, and a ring of one sample a second over the last 15 minutes (decisions by reason,
 * sessions placed first on each pathway, each pathway's load). Nothing here is evidence or a
 * decision input: it is the operator's view of what the server did.
 */
import { type DecisionFields, toHex } from '@wai-steering/wire';
import type { EngineObserver } from '../engine/types.js';
import { REASONS_BY_CODE } from './names.js';

/** One decision, as the console lists it. */
export interface RecentDecision {
  readonly digest: Uint8Array;
  /** Room clock, µs. */
  readonly t: bigint;
  readonly session: Uint8Array;
  /** The index of its first pathway. */
  readonly first: number;
  /** §6.4 reason code (1 to 6). */
  readonly reason: number;
}

/** A hop's ingest tallies (`POST /records`). */
export interface HopIngest {
  accepted: number;
  duplicate: number;
  /** Records accepted after their lag: `end` + L had passed when they arrived (§5.1). */
  late: number;
  /** Refusals by companion C7 reason. */
  readonly refused: Map<string, number>;
}

/** The history, one column per series, one row a second (oldest first). */
export interface HistoryColumns {
  /** Unix seconds at the end of each sample's second. */
  readonly t: number[];
  /** Decisions answered in that second, by §6.4 reason name. */
  readonly decisions: Record<string, number[]>;
  /** Sessions placed first on each pathway in that second, in the policy's order. */
  readonly first: number[][];
  /** Each pathway's load at the end of that second, in the policy's order. */
  readonly loads: number[][];
}

/** Options of {@link ConsoleActivity}. */
export interface ActivityOptions {
  /** Samples kept, one a second (default 900: 15 minutes). */
  readonly samples?: number;
  /** Recent decisions kept (default 50). */
  readonly recent?: number;
  /** L (µs) and the room clock, to count the records that arrive after their lag. */
  readonly lag?: { readonly lagUs: bigint; readonly now: () => bigint };
}

const REASON_CODES = 7; // index 1 to 6

/** The console's in-memory activity of one server; the engine's observer. */
export class ConsoleActivity implements EngineObserver {
  readonly capacity: number;
  private readonly recentMax: number;
  private readonly recentRing: (RecentDecision | undefined)[];
  private recentNext = 0;
  private recentCount = 0;
  /** The current second's counts. */
  private reasonNow: Uint32Array;
  private firstNow: Uint32Array;
  /** The ring of samples. */
  private readonly ts: Float64Array;
  private readonly reasons: Uint32Array;
  private readonly firsts: Uint32Array;
  private readonly loads: Uint32Array;
  private next = 0;
  private count = 0;
  /** Ingest tallies per hop key (hex); refusals of records that do not read under `''`. */
  readonly ingest = new Map<string, HopIngest>();

  private readonly lag: ActivityOptions['lag'];

  constructor(
    private readonly pathways: number,
    options: ActivityOptions = {},
  ) {
    this.lag = options.lag;
    this.capacity = options.samples ?? 900;
    this.recentMax = options.recent ?? 50;
    this.recentRing = new Array(this.recentMax);
    this.reasonNow = new Uint32Array(REASON_CODES);
    this.firstNow = new Uint32Array(pathways);
    this.ts = new Float64Array(this.capacity);
    this.reasons = new Uint32Array(this.capacity * REASON_CODES);
    this.firsts = new Uint32Array(this.capacity * pathways);
    this.loads = new Uint32Array(this.capacity * pathways);
  }

  /** The engine decided: noted as {@link ConsoleActivity.noteDecision}. */
  decided(fields: DecisionFields, digest: Uint8Array): void {
    this.noteDecision({
      digest,
      t: fields.t,
      session: fields.session,
      first: fields.priority[0]!,
      reason: fields.reason,
    });
  }

  /** A record was posted: noted as {@link ConsoleActivity.noteIngest}. */
  ingested(
    hop: Uint8Array | null,
    outcome: 'new' | 'duplicate' | { readonly refused: string },
    span?: { readonly start: bigint; readonly end: bigint },
  ): void {
    const key = hop === null ? '' : toHex(hop);
    this.noteIngest(key, outcome);
    // §5.1: a record is first required L after its period ends; one that arrives later is late.
    if (outcome === 'new' && span !== undefined && this.lag !== undefined) {
      if (this.lag.now() > span.end + this.lag.lagUs) this.ingest.get(key)!.late++;
    }
  }

  /** A decision answered: counted in the current second and kept among the recent ones. */
  noteDecision(d: RecentDecision): void {
    this.reasonNow[d.reason] = (this.reasonNow[d.reason] ?? 0) + 1;
    if (d.first >= 0 && d.first < this.pathways) this.firstNow[d.first]!++;
    this.recentRing[this.recentNext] = d;
    this.recentNext = (this.recentNext + 1) % this.recentMax;
    if (this.recentCount < this.recentMax) this.recentCount++;
  }

  /** A record posted by `hop` (hex; `''` when the record does not read): its outcome. */
  noteIngest(hop: string, outcome: 'new' | 'duplicate' | { readonly refused: string }): void {
    let entry = this.ingest.get(hop);
    if (entry === undefined) {
      entry = { accepted: 0, duplicate: 0, late: 0, refused: new Map() };
      this.ingest.set(hop, entry);
    }
    if (outcome === 'new') entry.accepted++;
    else if (outcome === 'duplicate') entry.duplicate++;
    else entry.refused.set(outcome.refused, (entry.refused.get(outcome.refused) ?? 0) + 1);
  }

  /** Closes the current second at unix second `t` with the loads as they stand. */
  sample(t: number, loads: ArrayLike<number>): void {
    const i = this.next;
    this.ts[i] = t;
    this.reasons.set(this.reasonNow, i * REASON_CODES);
    this.firsts.set(this.firstNow, i * this.pathways);
    for (let p = 0; p < this.pathways; p++) this.loads[i * this.pathways + p] = loads[p] ?? 0;
    this.reasonNow.fill(0);
    this.firstNow.fill(0);
    this.next = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The recent decisions, newest first. */
  recent(): RecentDecision[] {
    const out: RecentDecision[] = [];
    for (let k = 1; k <= this.recentCount; k++) {
      const d = this.recentRing[(this.recentNext - k + this.recentMax) % this.recentMax];
      if (d !== undefined) out.push(d);
    }
    return out;
  }

  /** The samples whose `t` is above `since` (all of them by default), oldest first. */
  history(since = Number.NEGATIVE_INFINITY): HistoryColumns {
    const out: HistoryColumns = {
      t: [],
      decisions: Object.fromEntries(REASONS_BY_CODE.slice(1).map((r) => [r, [] as number[]])),
      first: Array.from({ length: this.pathways }, () => []),
      loads: Array.from({ length: this.pathways }, () => []),
    };
    for (let k = this.count; k >= 1; k--) {
      const i = (this.next - k + this.capacity) % this.capacity;
      const t = this.ts[i]!;
      if (!(t > since)) continue;
      out.t.push(t);
      for (let r = 1; r < REASON_CODES; r++) {
        out.decisions[REASONS_BY_CODE[r]!]!.push(this.reasons[i * REASON_CODES + r]!);
      }
      for (let p = 0; p < this.pathways; p++) {
        out.first[p]!.push(this.firsts[i * this.pathways + p]!);
        out.loads[p]!.push(this.loads[i * this.pathways + p]!);
      }
    }
    return out;
  }

  /**
   * Sessions placed first on each pathway over the samples of the last `seconds` (and the
   * current second), with their total.
   */
  firstOver(seconds: number): { counts: number[]; total: number } {
    const counts = Array.from(this.firstNow);
    const n = Math.min(seconds, this.count);
    for (let k = 1; k <= n; k++) {
      const i = (this.next - k + this.capacity) % this.capacity;
      for (let p = 0; p < this.pathways; p++) counts[p]! += this.firsts[i * this.pathways + p]!;
    }
    return { counts, total: counts.reduce((s, c) => s + c, 0) };
  }
}
