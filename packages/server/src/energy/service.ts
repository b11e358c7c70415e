/**
 * The energy account as a server answers it (`docs/server.md`, *The
 * energy account*): `GET /energy`, `GET /energy/series` and `GET /energy/statement` over the
 * store, one account computed at a time (a few more wait their turn, requests for the same span
 * share one computation, the rest are told to come back), each streamed from the store with
 * pauses between pages (`stream.ts`); and the trailing-24-hour savings for Prometheus,
 * recomputed in the background (`gauges.ts`).
 */
import {
  accountOfPeriods,
  type EnergyAccount,
  isEnergySpanError,
  type PeriodFacts,
  type PolicyInForce,
  signStatement,
  spanPolicy,
} from '@wai-steering/energy';
import type { NoteSigner } from '@wai-steering/tlog';
import { encodePolicy, type Policy, readPolicy, toHex } from '@wai-steering/wire';
import { describeError, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import type { DecisionCursor, DecisionPage } from '../store/decisions.js';
import { StoreDamagedError } from '../store/errors.js';
import type { PolicyStore } from '../store/policies.js';
import type { RecordStore } from '../store/records.js';
import { tracedAsync } from '../trace.js';
import type { KeptPeriods } from './kept.js';
import { SeriesBuilder, type SeriesJson } from './series.js';
import { defaultSpan } from './span.js';
import { type AccountSource, decisionsSince, periodsOf, streamAccount } from './stream.js';

/** What the service reads of the engine: the policy in force, the clock, its decisions' listing. */
export interface EnergyEngine {
  readonly policy: Policy;
  readonly graceS: number;
  readonly now: () => bigint;
  readonly metrics: Metrics;
  readonly health: Health;
  listDecisions(
    from: bigint,
    to: bigint,
    after: DecisionCursor | null,
    limit: number,
  ): Promise<
    | ({ readonly kind: 'page' } & DecisionPage)
    | { readonly kind: 'store_damaged'; readonly what: 'decision' | 'record' | 'policy' }
    | { readonly kind: 'store_unavailable' }
  >;
}

/** Options of {@link EnergyService}. */
export interface EnergyServiceOptions {
  readonly engine: EnergyEngine;
  readonly store: RecordStore & PolicyStore;
  /** The log's signer: the steering key under the log's origin (the checkpoints' key name and ID). */
  readonly signer?: NoteSigner;
  /** Accounts computed at once (default 1). */
  readonly concurrency?: number;
  /** Requests that may wait for their turn (default 8); past them, `busy`. */
  readonly maxWaiting?: number;
  /** Awaited between pages of the store (default `setImmediate`). */
  readonly pause?: () => Promise<void>;
}

/** A span, and the series' sizes when the series is asked for. */
export interface EnergyRequest {
  readonly from: bigint | undefined;
  readonly to: bigint | undefined;
  readonly series?: { readonly buckets: number; readonly samples: number };
}

/** What the service answers. */
export type EnergyAnswer =
  | { readonly kind: 'account'; readonly account: EnergyAccount; readonly series?: SeriesJson }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'busy' }
  | { readonly kind: 'no_signer' }
  | { readonly kind: 'store_damaged'; readonly what: 'decision' | 'record' | 'policy' }
  | { readonly kind: 'store_unavailable' };

/** A read that failed, carried out of the stream as the answer it makes. */
class Failed extends Error {
  constructor(readonly answer: EnergyAnswer) {
    super(answer.kind);
  }
}

/** The largest window W of the policies: the horizon refuses a record longer than W. */
function longestWindow(policies: readonly PolicyInForce[]): bigint {
  let w = 0n;
  for (const p of policies) if (p.policy.window_us > w) w = p.policy.window_us;
  return w;
}

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The timeline of policies as a key: each one's instant and bytes. */
function timelineKey(policies: readonly PolicyInForce[]): string {
  return policies.map((p) => `${p.at}:${toHex(encodePolicy(p.policy))}`).join(',');
}

export class EnergyService {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inFlight = new Map<string, Promise<EnergyAnswer>>();
  private readonly concurrency: number;
  private readonly maxWaiting: number;

  constructor(private readonly o: EnergyServiceOptions) {
    this.concurrency = o.concurrency ?? 1;
    this.maxWaiting = o.maxWaiting ?? 8;
  }

  /** Whether statements can be signed (the server's log gives its signer). */
  get signs(): boolean {
    return this.o.signer !== undefined;
  }

  /** The statement of an account: the C2SP signed note (docs/energy.md, *The signed statement*). */
  statement(account: EnergyAccount): string {
    if (this.o.signer === undefined) throw new TypeError('EnergyService: no signer');
    return signStatement(account, this.o.signer);
  }

  /**
   * The policies in force, from the store's order of policies (each claim from its `at`); the
   * policy in force alone, from the start of the room clock, on a store that keeps no order.
   */
  async policies(): Promise<PolicyInForce[]> {
    const current = this.o.engine.policy;
    const claims = (await this.o.store.policyClaims?.(current.room)) ?? [];
    const out: PolicyInForce[] = [];
    for (const c of claims) {
      const read = readPolicy(c.bytes);
      if (!read.ok) throw new StoreDamagedError('policy', Buffer.from(c.digest).toString('hex'));
      if (out.length > 0 && c.at < out[out.length - 1]!.at) continue;
      out.push({ at: c.at, policy: read.value });
    }
    if (out.length === 0) out.push({ at: 0n, policy: current });
    return out;
  }

  /** The account of a request (and its series when asked), in turn with the others. */
  account(request: EnergyRequest): Promise<EnergyAnswer> {
    const key = `${request.from}:${request.to}:${request.series?.buckets}:${request.series?.samples}`;
    const shared = this.inFlight.get(key);
    if (shared !== undefined) return shared;
    if (this.running >= this.concurrency && this.waiting.length >= this.maxWaiting) {
      return Promise.resolve({ kind: 'busy' });
    }
    const run = this.inTurn(() => this.compute(request)).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, run);
    return run;
  }

  private async inTurn<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      return await tracedAsync('energy-account', job);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Where the accounts read: the store's records, the engine's listing of decisions. */
  private source(): AccountSource {
    const { engine, store } = this.o;
    return {
      recordsOfHops: (hops, after, through) =>
        this.read(() => store.recordsOfHops(hops, after, through)),
      listDecisions: async (f, t, after, limit) => {
        const page = await engine.listDecisions(f, t, after, limit);
        if (page.kind === 'page') return page;
        throw new Failed(page);
      },
    };
  }

  /**
   * What streaming an account of `[from, to)` is given besides its source: with `replay`, the
   * decisions too (from the TTL and grace before `from`), for `sessions_placed`.
   */
  private streamOptions(
    policies: readonly PolicyInForce[],
    from: bigint,
    to: bigint,
    replay: boolean,
  ) {
    const graceS = this.o.engine.graceS;
    return {
      policies,
      from,
      to,
      ...(replay ? { graceS, decisionsFrom: decisionsSince(policies, from, graceS) } : {}),
      longestRecordUs: longestWindow(policies),
      pause: this.o.pause ?? immediate,
    };
  }

  /** The answer of an account that failed: a span refused, a read that failed or did not read. */
  private failed(e: unknown): EnergyAnswer {
    if (isEnergySpanError(e)) return { kind: 'refused', message: e.message };
    if (e instanceof Failed) return e.answer;
    // A record or decision whose stored bytes do not read.
    if (e instanceof StoreDamagedError) return this.damaged(e);
    throw e;
  }

  private async compute(request: EnergyRequest): Promise<EnergyAnswer> {
    const { engine } = this.o;
    try {
      const policies = await this.read(() => this.policies());
      const { from, to } = defaultSpan(policies, engine.now(), request);
      let series: SeriesBuilder | undefined;
      const wanted = request.series;
      const account = await streamAccount(this.source(), {
        ...this.streamOptions(policies, from, to, true),
        ...(wanted === undefined
          ? {}
          : {
              periods: () => {
                const policy = policies.reduce((a, p) => (p.at <= to ? p : a), policies[0]!);
                series = new SeriesBuilder({
                  from,
                  to,
                  periodUs: policy.policy.period_us,
                  pathways: policy.policy.pathways.map((p) => p.id),
                  buckets: wanted.buckets,
                  samples: wanted.samples,
                });
                return series.onPeriod;
              },
            }),
      });
      return series === undefined
        ? { kind: 'account', account }
        : { kind: 'account', account, series: series.json() };
    } catch (e) {
      return this.failed(e);
    }
  }

  /**
   * The account of the default span (the trailing day) made from the periods `kept` holds,
   * reading from the store only the periods settled since they were kept and the last window's
   * again (records of a period may come up to its lag L after it; the window W more covers a
   * hop's retries), then keeping those read (docs/energy.md, *Kept period by period*). The whole
   * span is read when nothing usable is kept: at the first account, or after the timeline of
   * policies changed. Equal to {@link EnergyService.account} of the same span on the same store
   * but for `sessions_placed`, `null` here: no decision is read.
   */
  keptAccount(kept: KeptPeriods): Promise<EnergyAnswer> {
    if (this.running >= this.concurrency && this.waiting.length >= this.maxWaiting) {
      return Promise.resolve({ kind: 'busy' });
    }
    return this.inTurn(() => this.computeKept(kept));
  }

  private async computeKept(kept: KeptPeriods): Promise<EnergyAnswer> {
    const { engine } = this.o;
    try {
      const policies = await this.read(() => this.policies());
      const { from, to } = defaultSpan(policies, engine.now(), {
        from: undefined,
        to: undefined,
      });
      const { policy } = spanPolicy(policies, from, to);
      const P = policy.period_us;
      const key = timelineKey(policies);
      if (kept.key !== key) kept.reset(key);
      kept.dropBefore(from);
      const end = kept.end(P);
      let readFrom = from;
      if (end !== undefined && kept.covers(from, end, P)) {
        const again = end - periodsOf(policy.window_us, P);
        if (again > readFrom) readFrom = again;
      } else kept.reset(key);
      if (readFrom < to) {
        let facts: PeriodFacts[] = [];
        // Records only: the savings the gauges state do not depend on the sessions placed, and
        // replaying the decisions would cost about a quarter of making them.
        await streamAccount(this.source(), {
          ...this.streamOptions(policies, readFrom, to, false),
          facts: () => {
            facts = [];
            return (f) => facts.push(f);
          },
        });
        kept.put(facts);
      }
      if (!kept.covers(from, to, P)) {
        throw new Error('the energy gauges: the periods kept do not cover the span');
      }
      const account = accountOfPeriods(
        { policies, from, to, replayed: false },
        kept.within(from, to),
      );
      return { kind: 'account', account };
    } catch (e) {
      return this.failed(e);
    }
  }

  /** A read of the store: its damage or its failure made the answer (counted, told). */
  private async read<T>(f: () => Promise<T>): Promise<T> {
    const { metrics, health } = this.o.engine;
    try {
      return await f();
    } catch (e) {
      if (e instanceof StoreDamagedError) throw new Failed(this.damaged(e));
      metrics.storeErrors.inc({ op: 'query' });
      health.fail('store_queries', `store queries fail: ${describeError(e)}`);
      throw new Failed({ kind: 'store_unavailable' });
    }
  }

  /** Damage of the store: counted and logged once per row (`health.ts`). */
  private damaged(e: StoreDamagedError): EnergyAnswer {
    const { metrics, health } = this.o.engine;
    if (health.damaged(e.what, e.digest)) metrics.storeDamaged.inc({ what: e.what });
    return { kind: 'store_damaged', what: e.what };
  }
}
