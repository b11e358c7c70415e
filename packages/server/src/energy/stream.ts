/**
 * The energy account of a span streamed from the store (docs/server.md, *The energy account*): the records of the
 * span's hops read a page at a time by `end` (the stores' index), put back in ascending `start`
 * across pages, and the decisions of the span a page at a time in ascending `t`, fed interleaved
 * by instant to an `EnergyAccumulator`, which holds only the open period and its running sums.
 * Between pages it pauses (`pause`: the server's `setImmediate`), so that an account of a week
 * never holds the event loop for longer than one page takes.
 */
import {
  type EnergyAccount,
  EnergyAccumulator,
  type PeriodFacts,
  type PeriodView,
  type PolicyInForce,
  spanPolicy,
} from '@wai-steering/energy';
import { type Decision, readDecision, readHopRecord, toHex } from '@wai-steering/wire';
import type { DecisionCursor, ListedDecision } from '../store/decisions.js';
import { StoreDamagedError } from '../store/errors.js';
import type { StoredRecord } from '../store/records.js';

/** Where the account reads: the store's records by hop, and its decisions by time. */
export interface AccountSource {
  /** The records of `hops` whose `end` is in (`after`, `through`], ascending `start`. */
  recordsOfHops(
    hops: readonly Uint8Array[],
    after: bigint,
    through: bigint,
  ): Promise<readonly StoredRecord[]>;
  /** A page of the decisions with `from` ≤ `t` < `to`, ascending `t` (`listDecisions`). */
  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<{
    readonly decisions: readonly ListedDecision[];
    readonly next: DecisionCursor | null;
  }>;
}

/** What {@link streamAccount} computes. */
export interface StreamOptions {
  /** The policies in force, ascending `at` (the store's claims). */
  readonly policies: readonly PolicyInForce[];
  /** The span `[from, to)`, room clock µs. */
  readonly from: bigint;
  readonly to: bigint;
  /**
   * The session grace, whole seconds: the decisions are replayed (`sessions_placed`). Absent,
   * no decision is read and `sessions_placed` is `null` (the savings do not depend on it).
   */
  readonly graceS?: number;
  /**
   * The first instant of the decisions replayed (default `from`): a session placed before the
   * span still counts at its first midpoints while its TTL and the grace last (the load
   * replay), so its decision is replayed too (`decisionsSince`).
   */
  readonly decisionsFrom?: bigint;
  /**
   * The longest span of a record the store may hold, µs: the largest window W of the policies
   * (the horizon refuses a record longer than W). A longer one found starts the read again with
   * pages long enough for it, so a wrong guess costs time, never the account.
   */
  readonly longestRecordUs: bigint;
  /** About how many records a page holds (default 512). */
  readonly pageRecords?: number;
  /** The decisions a page holds (default 250). */
  readonly pageDecisions?: number;
  /** Awaited between pages (the server's: `setImmediate`). */
  readonly pause?: () => Promise<void>;
  /** Made once per attempt: told each period as it closes (the console's series). */
  readonly periods?: () => (period: PeriodView) => void;
  /** Made once per attempt: told each period's facts (the gauges' kept day, `kept.ts`). */
  readonly facts?: () => (facts: PeriodFacts) => void;
}

/** A record longer than the pages: the read starts again with pages of at least `us`. */
class LongerRecord extends Error {
  constructor(readonly us: bigint) {
    super('a record longer than the pages');
  }
}

const DEFAULT_PAGE_RECORDS = 512;
const DEFAULT_PAGE_DECISIONS = 250;

/**
 * The first instant of the decisions an account of a span from `from` replays: those whose
 * sessions may still count at its first midpoint, `from` − (the largest `ttl_s` of the policies
 * + the grace) s (the load replay: a session counts while t′ < t + (ttl + grace) × 10^6).
 */
export function decisionsSince(
  policies: readonly PolicyInForce[],
  from: bigint,
  graceS: number,
): bigint {
  let ttl = 0;
  for (const p of policies) if (p.policy.ttl_s > ttl) ttl = p.policy.ttl_s;
  const lead = (BigInt(ttl) + BigInt(graceS)) * 1_000_000n;
  return from > lead ? from - lead : 0n;
}

/** The µs of `us` rounded up to a whole number of periods of `P`, at least one. */
export function periodsOf(us: bigint, P: bigint): bigint {
  const n = (us + P - 1n) / P;
  return (n < 1n ? 1n : n) * P;
}

/**
 * The account of `[from, to)` from the store: every record it holds of the span's hops, every
 * decision it stored in the span. Rejects with the `EnergySpanError` of a span refused (before
 * any read), a {@link StoreDamagedError} for a row that does not read, or the store's failure.
 */
export async function streamAccount(
  source: AccountSource,
  o: StreamOptions,
): Promise<EnergyAccount> {
  const { policy } = spanPolicy(o.policies, o.from, o.to);
  const P = policy.period_us;
  const hops = policy.pathways.flatMap((p) => p.hops.map((h) => h.key));
  const perPeriod = Math.max(1, hops.length);
  const pageRecords = o.pageRecords ?? DEFAULT_PAGE_RECORDS;
  // A page of `end`s spans at least the longest record, and about `pageRecords` records.
  let S = periodsOf(o.longestRecordUs, P);
  const byCount = P * BigInt(Math.max(1, Math.ceil(pageRecords / perPeriod)));
  if (byCount > S) S = byCount;
  for (;;) {
    try {
      return await attempt(source, o, hops, S);
    } catch (e) {
      if (!(e instanceof LongerRecord)) throw e;
      S = periodsOf(e.us > 2n * S ? e.us : 2n * S, P);
    }
  }
}

/** Merges two arrays each in ascending `start` (`a` first at equal starts). */
function merge(a: StoredRecord[], b: readonly StoredRecord[]): StoredRecord[] {
  if (a.length === 0) return b.slice();
  if (b.length === 0) return a;
  const out: StoredRecord[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) out[n++] = b[j]!.start < a[i]!.start ? b[j++]! : a[i++]!;
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out;
}

async function attempt(
  source: AccountSource,
  o: StreamOptions,
  hops: readonly Uint8Array[],
  S: bigint,
): Promise<EnergyAccount> {
  const onPeriod = o.periods?.();
  const onFacts = o.facts?.();
  const acc = new EnergyAccumulator({
    policies: o.policies,
    from: o.from,
    to: o.to,
    ...(o.graceS === undefined ? {} : { graceS: o.graceS }),
    ...(onPeriod === undefined ? {} : { onPeriod }),
    ...(onFacts === undefined ? {} : { onFacts }),
  });
  const pause = o.pause ?? (() => Promise.resolve());
  const decisions = o.graceS === undefined ? undefined : new DecisionPages(source, o, pause);
  let pending: StoredRecord[] = [];
  const feed = async (records: readonly StoredRecord[]): Promise<void> => {
    for (const r of records) {
      const read = readHopRecord(r.bytes);
      if (!read.ok) throw new StoreDamagedError('record', toHex(r.digest));
      // The decisions before this record's start first: the two streams in step by instant.
      await decisions?.before(read.value.start, acc);
      acc.addRecord({ record: read.value, digest: r.digest });
    }
  };
  // Pages of `end` in (e, e + S]: every record that starts before `to` ends before `to + S`.
  for (let e = o.from; e < o.to + S; e += S) {
    const page = await source.recordsOfHops(hops, e, e + S);
    for (const r of page) if (r.end - r.start > S) throw new LongerRecord(r.end - r.start);
    pending = merge(pending, page);
    // A later page's records end after e + S, so start after e: those up to e are all here.
    let n = 0;
    while (n < pending.length && pending[n]!.start <= e) n++;
    const ready = pending.slice(0, n);
    pending = pending.slice(n);
    await feed(ready);
    await pause();
  }
  await feed(pending);
  await decisions?.rest(acc);
  return acc.finish();
}

/** The span's decisions, a page at a time, fed up to an instant. */
class DecisionPages {
  private page: readonly ListedDecision[] = [];
  private at = 0;
  private next: DecisionCursor | null = null;
  private done = false;
  private last: Decision | undefined;
  private readonly limit: number;

  constructor(
    private readonly source: AccountSource,
    private readonly o: StreamOptions,
    private readonly pause: () => Promise<void>,
  ) {
    this.limit = o.pageDecisions ?? DEFAULT_PAGE_DECISIONS;
  }

  /** The next decision, `undefined` after the last. */
  private async peek(): Promise<ListedDecision | undefined> {
    while (this.at >= this.page.length) {
      if (this.done) return undefined;
      const from = this.o.decisionsFrom ?? this.o.from;
      const got = await this.source.listDecisions(from, this.o.to, this.next, this.limit);
      this.page = got.decisions;
      this.at = 0;
      this.next = got.next;
      if (got.next === null) this.done = true;
      await this.pause();
    }
    return this.page[this.at];
  }

  /** Feeds every decision with `t` < `t0`. */
  async before(t0: bigint, acc: EnergyAccumulator): Promise<void> {
    // The common case without a read: the next decision is held and not before t0.
    const held = this.page[this.at];
    if (held !== undefined && held.t >= t0) return;
    for (let d = await this.peek(); d !== undefined && d.t < t0; d = await this.peek()) {
      this.add(d, acc);
    }
  }

  private add(d: ListedDecision, acc: EnergyAccumulator): void {
    this.last = decisionOf(d, this.last);
    acc.addDecision(this.last);
    this.at++;
  }

  /** Feeds every decision left. */
  async rest(acc: EnergyAccumulator): Promise<void> {
    for (let d = await this.peek(); d !== undefined; d = await this.peek()) this.add(d, acc);
  }
}

/**
 * A decision as the account reads it; `previous`, the one read before, lets a run of decisions
 * over one window's evidence skip reading it again (`readDecision`).
 */
function decisionOf(d: ListedDecision, previous: Decision | undefined): Decision {
  const read = readDecision(d.bytes, previous === undefined ? {} : { previous });
  if (!read.ok) throw new StoreDamagedError('decision', toHex(d.digest));
  return read.value;
}
