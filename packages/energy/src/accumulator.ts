/**
 * The account as a stream (docs/energy.md, *The method*): records fed in ascending period order and
 * decisions in ascending `t`, holding only the open period's records, each pathway's running
 * sums, and, for the sessions placed, the sessions that still count (the load replay) and the
 * periods one stream has closed that the other has not reached yet.
 */
import { deliveryOf, type EvidenceRecord } from '@wai-steering/evidence';
import { LoadReplay } from '@wai-steering/verifier';
import {
  bytesEqual,
  type DecisionFields,
  type HopRecordFields,
  type Policy,
  toHex,
} from '@wai-steering/wire';
import { RunningSums } from './internal/sums.js';
import { accountOfTotals, type PathwayFacts, type PeriodFacts } from './periods.js';
import { type PolicyInForce, spanPolicy } from './policies.js';
import type { EnergyAccount } from './types.js';

/** What the account reads of a decision (a decision as read, `DecisionFields`, is one). */
export type AccountDecision = Pick<
  DecisionFields,
  't' | 'session' | 'policy' | 'ttl' | 'priority'
> & {
  readonly pathways: readonly unknown[];
};

/** One pathway's part of one period, as {@link AccumulatorOptions.onPeriod} is told it. */
export interface PeriodPathway {
  /** Whether the period is usable for the pathway (item 1b). */
  readonly usable: boolean;
  /** J_pk and D_pk when usable; 0 otherwise. */
  readonly joules: bigint;
  readonly delivery: bigint;
  /** The edge hops' `sessions` when usable; 0 otherwise. */
  readonly sessions: number;
}

/** A period closed: its index k, its bounds, and each pathway's part in policy order. */
export interface PeriodView {
  readonly index: number;
  readonly start: bigint;
  readonly end: bigint;
  readonly pathways: readonly PeriodPathway[];
}

/** Options of an account. */
export interface AccumulatorOptions {
  /** The policies and the instants they took effect, ascending (see `spanPolicy`). */
  readonly policies: readonly PolicyInForce[];
  /** The span `[from, to)`, room clock µs, whole periods. */
  readonly from: bigint;
  readonly to: bigint;
  /**
   * The server's session grace, whole seconds (an archive's `grace_s`): given, decisions are
   * replayed and `sessions_placed` is stated (0 with no decision); absent, it is `null`.
   */
  readonly graceS?: number;
  /** Told each period as it closes, in order (a console's scatter and cumulative series). */
  readonly onPeriod?: (period: PeriodView) => void;
  /**
   * Told each period's facts once both streams have passed it, in order: what
   * `accountOfPeriods` makes the account of (docs/energy.md, *Kept period by period*).
   */
  readonly onFacts?: (facts: PeriodFacts) => void;
}

/** A hop of the policy: where its records go. */
interface HopSlot {
  readonly key: Uint8Array;
  readonly pathway: number;
  readonly hop: number;
  readonly edge: boolean;
}

/** One pathway's open period and running sums. */
interface PathwayState {
  /**
   * The open period's records (deduplicated by digest), with each one's hop index and digest:
   * the first `held` entries of each array (kept, not emptied, from one period to the next).
   */
  recs: HopRecordFields[];
  hops: number[];
  digests: Uint8Array[];
  held: number;
  /** The last period made unusable by a record that crosses a period's bounds. */
  taintedThrough: number;
  readonly sums: RunningSums;
  /** Sessions served: a `bigint`, and a number added to it before it could lose a unit. */
  served: bigint;
  servedSmall: number;
  placed: bigint;
}

/** Below 2^53 by more than any period's sessions (32 edge hops × 2^32 − 1). */
const SMALL_LIMIT = 2 ** 52;
const TWO53 = 2 ** 53;

/** A FIFO of per-period values waiting for the other stream. */
class Waiting<T> {
  private items: { k: number; v: T }[] = [];
  private head = 0;
  get empty(): boolean {
    return this.head === this.items.length;
  }
  push(k: number, v: T): void {
    this.items.push({ k, v });
  }
  /** The value of period k if it is first in line. */
  take(k: number): T | undefined {
    const first = this.items[this.head];
    if (first === undefined || first.k !== k) return undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    return first.v;
  }
}

const EDGE = 1;

function prefix(b: Uint8Array): number {
  return b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24);
}

/** Whether two keys (public, so compared with an early exit) are the same bytes. */
function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

function latin1(b: Uint8Array): string {
  return String.fromCharCode.apply(null, b as unknown as number[]);
}

/**
 * An account under way. Feed it every record with {@link addRecord} in ascending period order
 * (the period of a record's `start`; records of one period in any order), and, with `graceS`,
 * every decision with {@link addDecision} in ascending `t`; then {@link finish}. Memory holds the
 * open period's records, the running sums, the replay's sessions, and the periods between the
 * two streams' positions: interleave records and decisions by instant to keep it constant.
 */
export class EnergyAccumulator {
  private readonly policy: Policy;
  private readonly idsByDigest: ReadonlyMap<string, readonly string[]>;
  private readonly from: bigint;
  private readonly to: bigint;
  private readonly P: bigint;
  /** The span's periods. */
  readonly periods: number;
  private readonly slots = new Map<number, HopSlot[]>();
  private readonly state: PathwayState[];
  /** Per pathway, per hop: 1 for an edge hop (§3.2 place 1). */
  private readonly edges: Uint8Array[];
  private readonly onPeriod: ((period: PeriodView) => void) | undefined;
  private readonly onFacts: ((facts: PeriodFacts) => void) | undefined;
  /** With the replay, the periods closed whose facts wait for their midpoint's count. */
  private readonly factsWaiting = new Map<number, { start: bigint; parts: PeriodPathway[] }>();
  /** The open period (records of earlier periods are refused), and its bounds. */
  private open = 0;
  private openStart: bigint;
  private openEnd: bigint;
  private result: EnergyAccount | undefined;

  private readonly replay: LoadReplay | undefined;
  private nextMid = 0;
  private lastT = -1n;
  private lastPolicy: Uint8Array | undefined;
  private lastPolicyHex = '';
  private readonly idsCache = new Map<string, readonly string[]>();
  private readonly mapCache = new Map<readonly string[], Int32Array>();
  private followed: Int32Array = new Int32Array(0);
  private readonly masks = new Waiting<number>();
  private readonly counts = new Waiting<Int32Array>();

  /** Checks the span against the policies (`EnergySpanError` when refused). */
  constructor(options: AccumulatorOptions) {
    const { policy, idsByDigest } = spanPolicy(options.policies, options.from, options.to);
    this.policy = policy;
    this.idsByDigest = idsByDigest;
    this.from = options.from;
    this.to = options.to;
    this.P = policy.period_us;
    this.periods = Number((this.to - this.from) / this.P);
    this.openStart = this.from;
    this.openEnd = this.from + this.P;
    this.onPeriod = options.onPeriod;
    this.onFacts = options.onFacts;
    if (options.graceS !== undefined) this.replay = new LoadReplay(options.graceS);
    if (policy.pathways.length > 32) throw new RangeError('energy: at most 32 pathways (§3.3)');
    this.edges = policy.pathways.map((pw) =>
      Uint8Array.from(pw.hops, (h) => (h.place === EDGE ? 1 : 0)),
    );
    this.state = policy.pathways.map((pw, p) => {
      pw.hops.forEach((h, i) => {
        const slot: HopSlot = { key: h.key, pathway: p, hop: i, edge: h.place === EDGE };
        const k = prefix(h.key);
        const list = this.slots.get(k);
        if (list === undefined) this.slots.set(k, [slot]);
        else list.push(slot);
      });
      return {
        recs: [],
        hops: [],
        digests: [],
        held: 0,
        taintedThrough: -1,
        sums: new RunningSums(),
        served: 0n,
        servedSmall: 0,
        placed: 0n,
      };
    });
  }

  private lastKey: Uint8Array | undefined;
  private lastSlot: HopSlot | undefined;
  private lastRoom: Uint8Array | undefined;

  private slotOf(key: Uint8Array): HopSlot | undefined {
    if (key === this.lastKey) return this.lastSlot;
    this.lastKey = key;
    this.lastSlot = this.findSlot(key);
    return this.lastSlot;
  }

  private findSlot(key: Uint8Array): HopSlot | undefined {
    const list = this.slots.get(prefix(key));
    if (list === undefined) return undefined;
    for (const s of list) if (sameKey(s.key, key)) return s;
    return undefined;
  }

  private live(what: string): void {
    if (this.result !== undefined)
      throw new TypeError(`EnergyAccumulator.${what}: already finished`);
  }

  /**
   * One record held (a record of another room, of a hop no pathway of the policy has, or outside
   * the span is passed over). A record given twice counts once. A `TypeError` for a record of a
   * period before one already given.
   */
  addRecord(r: EvidenceRecord): void {
    this.live('addRecord');
    const rec = r.record;
    const start = rec.start;
    const end = rec.end;
    // The common case first: a record within the open period.
    const within = start >= this.openStart && end <= this.openEnd && start < end;
    if (!within && (end <= this.from || start >= this.to)) return;
    const slot = this.slotOf(rec.hop);
    if (slot === undefined) return;
    if (rec.room !== this.lastRoom) {
      if (!sameKey(rec.room, this.policy.room)) return;
      this.lastRoom = rec.room;
    }
    const st = this.state[slot.pathway]!;
    if (within) {
      this.hold(st, slot.hop, r);
      return;
    }
    // The period of the record's start (0 for one that starts before the span).
    const k = start < this.from ? 0 : Number((start - this.from) / this.P);
    if (k < this.open) {
      throw new TypeError(
        `EnergyAccumulator.addRecord: a record of period ${k} after one of period ${this.open}: give records in ascending period order`,
      );
    }
    if (k > this.open) this.closeUntil(k);
    if (start >= this.openStart && end <= this.openEnd && start < end) {
      this.hold(st, slot.hop, r);
      return;
    }
    // Item 1b: a record that crosses a period's bounds makes each period it touches unusable.
    const last = end > start ? Number((end - 1n - this.from) / this.P) : k;
    st.taintedThrough = Math.max(st.taintedThrough, Math.min(last, this.periods - 1));
  }

  /** Holds a record of the open period, unless the same record (its digest) is held (item 1b). */
  private hold(st: PathwayState, hop: number, r: EvidenceRecord): void {
    const n = st.held;
    for (let i = 0; i < n; i++) {
      if (
        st.hops[i] === hop &&
        st.recs[i]!.start === r.record.start &&
        bytesEqual(st.digests[i]!, r.digest)
      ) {
        return;
      }
    }
    st.recs[n] = r.record;
    st.hops[n] = hop;
    st.digests[n] = r.digest;
    st.held = n + 1;
  }

  /** Closes the periods from the open one up to `k` (exclusive); `k` is then open. */
  private closeUntil(k: number): void {
    while (this.open < k) {
      this.close(this.open);
      this.open++;
      this.openStart = this.openEnd;
      this.openEnd += this.P;
    }
  }

  /** Item 1b: each pathway's usability, J and D over period k, into its sums. */
  private close(k: number): void {
    const a = this.openStart;
    const b = this.openEnd;
    let mask = 0;
    const view: PeriodPathway[] | undefined =
      this.onPeriod === undefined && this.onFacts === undefined ? undefined : [];
    for (let p = 0; p < this.state.length; p++) {
      const st = this.state[p]!;
      let usable = false;
      if (st.held > 0) {
        if (st.taintedThrough < k && this.tally(p, st, a, b)) usable = true;
        st.held = 0;
      }
      if (usable) {
        if (this.big) st.sums.addBig(this.deliveryBig, this.joulesBig);
        else st.sums.add(this.delivery, this.joules);
        st.servedSmall += this.sessions;
        if (st.servedSmall > SMALL_LIMIT) {
          st.served += BigInt(st.servedSmall);
          st.servedSmall = 0;
        }
        mask |= 1 << p;
      }
      if (view !== undefined) {
        view.push(
          usable
            ? {
                usable,
                joules: this.big ? this.joulesBig : BigInt(this.joules),
                delivery: this.big ? this.deliveryBig : BigInt(this.delivery),
                sessions: this.sessions,
              }
            : { usable, joules: 0n, delivery: 0n, sessions: 0 },
        );
      }
    }
    if (view !== undefined && this.onFacts !== undefined) {
      if (this.replay === undefined) {
        this.onFacts({ start: a, pathways: view.map((v) => ({ ...v, placed: null })) });
      } else this.factsWaiting.set(k, { start: a, parts: view });
    }
    if (this.replay !== undefined) {
      const c = this.counts.take(k);
      if (c === undefined) this.masks.push(k, mask);
      else this.place(k, mask, c);
    }
    if (view !== undefined) this.onPeriod?.({ index: k, start: a, end: b, pathways: view });
  }

  /**
   * What {@link tally} found of a usable period: J and D as numbers when both are below 2^53
   * (`big` false), as `bigint`s otherwise; and the edge hops' sessions.
   */
  private joules = 0;
  private delivery = 0;
  private big = false;
  private joulesBig = 0n;
  private deliveryBig = 0n;
  private sessions = 0;

  /**
   * §5.2 and §5.3 over one period [a, b) for pathway p (item 1b): each hop's records, in hop
   * order and ascending `start`, tile it; none is the unmetered marker; all are of one class.
   * Then J is every record's `joules` and D the edge hops' delivery (`deliveryOf`, §5.3), and
   * the sessions the edge hops' `sessions`; whether the period is usable.
   */
  private tally(p: number, st: PathwayState, a: bigint, b: bigint): boolean {
    const n = st.held;
    if (n > 1) sortHeld(st);
    const { recs, hops } = st;
    const edge = this.edges[p]!;
    const { basis, floor } = this.policy;
    let hop = -1;
    let at = a;
    const cls = recs[0]!.class;
    if (cls === 0) return false;
    let joules = 0;
    let delivery = 0;
    let big = false;
    let sessions = 0;
    for (let i = 0; i < n; i++) {
      const r = recs[i]!;
      const h = hops[i]!;
      if (h !== hop) {
        // The hop before ended at b; this is the next hop of the pathway, from a.
        if ((hop >= 0 && at !== b) || h !== hop + 1) return false;
        hop = h;
        at = a;
      }
      if (r.start !== at || r.class !== cls) return false;
      at = r.end;
      // Number() of a bigint is monotonic and 2^53 is a float: below 2^53 as a float iff below
      // it as an integer, and then exact.
      const j = Number(r.joules);
      if (j < TWO53) joules += j;
      else big = true;
      if (edge[h] === 1) {
        const d = Number(deliveryOf(r, basis, floor));
        if (d < TWO53) delivery += d;
        else big = true;
        sessions += r.sessions;
      }
    }
    if (hop !== edge.length - 1 || at !== b) return false;
    // A sum of terms below 2^53 is exact until it reaches 2^53 (then it is ≥ 2^53 as a float).
    this.big = big || joules >= TWO53 || delivery >= TWO53;
    if (this.big) {
      let j = 0n;
      let d = 0n;
      for (let i = 0; i < n; i++) {
        const r = recs[i]!;
        j += r.joules;
        if (edge[hops[i]!] === 1) d += deliveryOf(r, basis, floor);
      }
      this.joulesBig = j;
      this.deliveryBig = d;
    }
    this.joules = joules;
    this.delivery = delivery;
    this.sessions = sessions;
    return true;
  }

  /** Item 1e: the sessions counting at each usable pathway at a period's midpoint. */
  private place(k: number, mask: number, counts: Int32Array): void {
    for (let p = 0; p < this.state.length; p++) {
      if ((mask >>> p) & 1) this.state[p]!.placed += BigInt(counts[p]!);
    }
    const waiting = this.factsWaiting.get(k);
    if (waiting !== undefined) {
      this.factsWaiting.delete(k);
      const pathways: PathwayFacts[] = waiting.parts.map((v, p) => ({
        ...v,
        placed: (mask >>> p) & 1 ? BigInt(counts[p]!) : 0n,
      }));
      this.onFacts!({ start: waiting.start, pathways });
    }
  }

  private midpoint(k: number): bigint {
    return this.from + BigInt(k) * this.P + this.P / 2n;
  }

  /** Counts the sessions at period `nextMid`'s midpoint, every decision before it placed. */
  private countMid(): void {
    const replay = this.replay!;
    const k = this.nextMid++;
    replay.advance(this.midpoint(k));
    const loads = replay.loads();
    const counts = new Int32Array(this.state.length);
    const to = this.followed;
    for (let i = 0; i < loads.length; i++) {
      const p = to[i]!;
      if (p >= 0) counts[p]! += loads[i]!;
    }
    const mask = this.masks.take(k);
    if (mask === undefined) this.counts.push(k, counts);
    else this.place(k, mask, counts);
  }

  /** The pathway IDs of a decision of `m` pathways under the policy of digest `hex`. */
  private idsOf(hex: string, m: number): readonly string[] {
    const key = `${hex}:${m}`;
    let ids = this.idsCache.get(key);
    if (ids === undefined) {
      const known = this.idsByDigest.get(hex);
      // A pathway the account cannot name is `#<index>`, which no pathway ID spells (§3.3).
      ids = Array.from({ length: m }, (_, i) => known?.[i] ?? `#${i}`);
      this.idsCache.set(key, ids);
    }
    return ids;
  }

  /** Where each ID of `ids` is in the account's policy (−1 where it has none). */
  private mapOf(ids: readonly string[]): Int32Array {
    let map = this.mapCache.get(ids);
    if (map === undefined) {
      const at = new Map(this.policy.pathways.map((pw, p) => [pw.id, p]));
      map = Int32Array.from(ids, (id) => at.get(id) ?? -1);
      this.mapCache.set(ids, map);
    }
    return map;
  }

  /**
   * One decision, in ascending `t` (decisions of one `t` in the order the server stored them),
   * replayed by the rule of docs/audit.md (*The load replay*); every decision given is placed.
   * Decisions before the span count too: their sessions may still count at its first periods.
   */
  addDecision(d: AccountDecision): void {
    this.live('addDecision');
    const replay = this.replay;
    if (replay === undefined) {
      throw new TypeError('EnergyAccumulator.addDecision: give graceS to replay decisions');
    }
    if (d.t < this.lastT) {
      throw new TypeError('EnergyAccumulator.addDecision: decisions must come in ascending t');
    }
    this.lastT = d.t;
    // Item 1e: a decision exactly at a midpoint counts there, so only midpoints before t now.
    while (this.nextMid < this.periods && this.midpoint(this.nextMid) < d.t) this.countMid();
    if (this.nextMid >= this.periods) return;
    if (this.lastPolicy === undefined || !bytesEqual(this.lastPolicy, d.policy)) {
      this.lastPolicy = d.policy.slice();
      this.lastPolicyHex = toHex(d.policy);
    }
    const m = d.pathways.length;
    const ids = this.idsOf(this.lastPolicyHex, m);
    replay.follow(this.lastPolicyHex, ids);
    this.followed = this.mapOf(ids);
    replay.advance(d.t);
    const first = d.priority[0];
    // A decision of no pathway places nothing.
    if (m > 0 && first !== undefined && first < m) {
      replay.place(latin1(d.session), first, d.t, d.ttl);
    }
  }

  /** Closes every period and returns the account (the same object if called again). */
  finish(): EnergyAccount {
    if (this.result !== undefined) return this.result;
    this.closeUntil(this.periods);
    if (this.replay !== undefined) while (this.nextMid < this.periods) this.countMid();
    this.result = accountOfTotals(
      this.policy,
      this.from,
      this.to,
      this.state.map((st) => ({
        sums: st.sums,
        served: st.served + BigInt(st.servedSmall),
        placed: st.placed,
      })),
      this.replay !== undefined,
    );
    return this.result;
  }
}

/** The held records of a pathway sorted by hop, then `start` (§5.2's order); few, so by insertion. */
function sortHeld(st: PathwayState): void {
  const { recs, hops, digests } = st;
  for (let i = 1; i < st.held; i++) {
    const r = recs[i]!;
    const h = hops[i]!;
    const d = digests[i]!;
    let j = i - 1;
    while (j >= 0 && (hops[j]! > h || (hops[j] === h && recs[j]!.start > r.start))) {
      recs[j + 1] = recs[j]!;
      hops[j + 1] = hops[j]!;
      digests[j + 1] = digests[j]!;
      j--;
    }
    recs[j + 1] = r;
    hops[j + 1] = h;
    digests[j + 1] = d;
  }
}
